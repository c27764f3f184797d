"""Regenerate src/connect/proto/spark-connect.pb, the protobuf descriptors
weir's Spark Connect endpoint is generated from (protoc-c, at build time).

The descriptors are taken from the pinned pyspark-client itself, so weir
speaks exactly the protocol version that client speaks. protobuf-c 1.4
cannot generate proto3 `optional` fields; each such field is turned into the
only member of a oneof of its own, which has the same wire format and gives
the C code a presence flag (`<Message>__<Field>Case`).

usage: python connect-descriptors.py OUT.pb   (with pyspark-client installed)
"""
import sys

from google.protobuf import descriptor_pb2, descriptor_pool
import google.rpc.error_details_pb2  # noqa: F401  (registers the files)
import google.rpc.status_pb2  # noqa: F401
import pyspark.sql.connect.proto  # noqa: F401

ROOTS = ["spark/connect/base.proto", "spark/connect/pipelines.proto",
         "google/rpc/status.proto", "google/rpc/error_details.proto"]


def collect():
    pool = descriptor_pool.Default()
    seen, out = set(), descriptor_pb2.FileDescriptorSet()

    def add(fd):
        if fd.name in seen:
            return
        for dep in fd.dependencies:
            add(dep)
        seen.add(fd.name)
        proto = descriptor_pb2.FileDescriptorProto()
        fd.CopyToProto(proto)
        out.file.append(proto)

    for name in ROOTS:
        add(pool.FindFileByName(name))
    return out


def drop_proto3_optional(msg):
    n = 0
    for field in msg.field:
        if field.proto3_optional:
            field.proto3_optional = False
            n += 1
    for nested in msg.nested_type:
        n += drop_proto3_optional(nested)
    return n


def main():
    fds = collect()
    n = sum(drop_proto3_optional(m) for f in fds.file for m in f.message_type)
    with open(sys.argv[1], "wb") as fh:
        fh.write(fds.SerializeToString(deterministic=True))
    print(f"{len(fds.file)} files, {n} proto3-optional fields rewritten:")
    print("\n".join(f.name for f in fds.file))


if __name__ == "__main__":
    main()
