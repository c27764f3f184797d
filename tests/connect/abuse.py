"""Hostile and malformed traffic against weir's Spark Connect endpoint: each
must give an error status or a closed connection, and the server must keep
serving (run.sh registers a project afterwards).

usage: python abuse.py PORT TOKEN MAX_MESSAGE
"""
import socket
import sys

import grpc

port, token, max_message = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
target = f"localhost:{port}"
auth = [("authorization", f"Bearer {token}")]
failures = []


def expect_closed(payload: bytes, what: str) -> None:
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    try:
        s.sendall(payload)
        while True:
            data = s.recv(65536)
            if not data:
                break
    except (ConnectionResetError, BrokenPipeError):
        pass
    except socket.timeout:
        failures.append(f"{what}: connection left open")
    finally:
        s.close()


def call(method: str, body: bytes, code: grpc.StatusCode, what: str,
         metadata=auth, compression=None) -> None:
    with grpc.insecure_channel(target, options=[
            ("grpc.max_send_message_length", -1)]) as ch:
        fn = ch.unary_unary(f"/spark.connect.SparkConnectService/{method}",
                            request_serializer=None, response_deserializer=None)
        try:
            fn(body, metadata=metadata, timeout=20, compression=compression)
            failures.append(f"{what}: succeeded, expected {code.name}")
        except grpc.RpcError as e:
            if e.code() != code:
                failures.append(f"{what}: got {e.code().name} ({e.details()}), "
                                f"expected {code.name}")


expect_closed(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n" + bytes(range(256)) * 64,
              "HTTP/1.1 and garbage")
expect_closed(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\xff" * 4096,
              "HTTP/2 preface then garbage frames")
expect_closed(bytes(range(256)) * 16, "random bytes")

call("Config", b"\x0a\x03abc", grpc.StatusCode.UNAUTHENTICATED, "no token",
     metadata=None)
call("Config", b"\x0a\x03abc", grpc.StatusCode.UNAUTHENTICATED, "bad token",
     metadata=[("authorization", "Bearer nope")])
call("Config", b"\x0a" + b"x" * (max_message + 10),
     grpc.StatusCode.RESOURCE_EXHAUSTED, "oversized message")
call("Config", b"\x0a\x03abc" * 1000, grpc.StatusCode.UNIMPLEMENTED,
     "compressed message", compression=grpc.Compression.Gzip)
call("Config", b"\xff\xff\xff\xff", grpc.StatusCode.INVALID_ARGUMENT,
     "malformed protobuf")
deep = b""
for _ in range(5000):  # ExecutePlanRequest.plan.root ... nested far too deep
    deep = b"\x1a" + bytes([len(deep)]) + deep if len(deep) < 128 else \
        b"\x1a" + bytes([0x80 | (len(deep) & 0x7F), len(deep) >> 7]) + deep
    if len(deep) > max_message - 16:
        break
call("ExecutePlan", deep, grpc.StatusCode.INVALID_ARGUMENT, "deep nesting")
call("NoSuchMethod", b"", grpc.StatusCode.UNIMPLEMENTED, "unknown method")

for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
