# Turns the launcher and the shim into C arrays (cmake -P, at build time):
#   cmake -DOUT=file.c -DINPUTS="name=path,name=path" -P embed.cmake
# Each input becomes `const char <name>[]`, NUL-terminated. Byte arrays, not
# string literals: ISO C caps literals at 4095 characters.
set(text "/* Generated from src/cli/python/ by embed.cmake: do not edit. */\n")
string(REPLACE "," ";" inputs "${INPUTS}")
foreach(item ${inputs})
  string(REGEX MATCH "^([a-z_]+)=(.*)$" _ "${item}")
  set(name "${CMAKE_MATCH_1}")
  file(READ "${CMAKE_MATCH_2}" hex HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
  string(APPEND text "extern const char ${name}[];\nconst char ${name}[] = {\n${bytes}0x00 };\n")
endforeach()
file(WRITE "${OUT}.tmp" "${text}")
file(RENAME "${OUT}.tmp" "${OUT}")
