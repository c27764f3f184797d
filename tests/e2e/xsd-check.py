"""Validate XML files against an XML Schema with libxml2 (the C library
every Debian system has; no Python package needed), as CI tools validate
JUnit reports. Usage: python3 xsd-check.py SCHEMA.xsd FILE.xml...
Prints libxml2's errors and exits 1 when a file is not valid."""
import ctypes
import ctypes.util
import sys


def main(schema_path, files):
    name = ctypes.util.find_library("xml2") or "libxml2.so.2"
    lib = ctypes.CDLL(name)
    lib.xmlSchemaNewParserCtxt.restype = ctypes.c_void_p
    lib.xmlSchemaNewParserCtxt.argtypes = [ctypes.c_char_p]
    lib.xmlSchemaParse.restype = ctypes.c_void_p
    lib.xmlSchemaParse.argtypes = [ctypes.c_void_p]
    lib.xmlSchemaNewValidCtxt.restype = ctypes.c_void_p
    lib.xmlSchemaNewValidCtxt.argtypes = [ctypes.c_void_p]
    lib.xmlSchemaValidateFile.restype = ctypes.c_int
    lib.xmlSchemaValidateFile.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                                          ctypes.c_int]
    parser = lib.xmlSchemaNewParserCtxt(schema_path.encode())
    schema = lib.xmlSchemaParse(parser) if parser else None
    if not schema:
        print(f"{schema_path}: not a valid XML Schema", file=sys.stderr)
        return 2
    bad = 0
    for f in files:
        ctx = lib.xmlSchemaNewValidCtxt(schema)
        rc = lib.xmlSchemaValidateFile(ctx, f.encode(), 0)
        if rc != 0:
            print(f"{f}: not valid against {schema_path} ({rc})",
                  file=sys.stderr)
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit("usage: xsd-check.py SCHEMA.xsd FILE.xml...")
    sys.exit(main(sys.argv[1], sys.argv[2:]))
