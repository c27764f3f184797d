# weir's Python launcher: imports a pipeline's Python definition files with
# the real pyspark-client, against the Spark Connect endpoint weir started
# for this one run, so that their datasets and flows land in weir's graph.
#
# Run by the weir CLI as `python -c <this file> SHIM_SOURCE SPEC_PATH
# FILE...` with WEIR_CONNECT_SOCKET (weir's endpoint: "@name", an abstract
# unix-domain socket) and WEIR_CONNECT_TOKEN, in the spec's folder. FILEs
# are relative to that folder, in weir's order; SQL files are not among
# them (weir registers those itself). The graph is only defined here: weir
# validates and runs it, so there is no start_run.
# With SPARK_REMOTE and WEIR_GRAPH_ID set instead (`weir run --remote`),
# SPARK_REMOTE is a Spark Connect server's session weir opened and the
# files define into that graph, which weir created and runs.
#
# weir listens on descriptor $WEIR_STATUS_FD (a pipe): one JSON object per
# line, {"event": "importing", "file": N} before the Nth file (from 0),
# {"event": "done", "files": N} once every file is imported, and
# {"event": "error", "kind": ..., "message": ..., "error_class": ...,
# "path": ..., "line": ..., "server": ...} when something fails. weir
# believes the exit status only with these: a status 0 without "done"
# means a definition file ended the process.
#
# Exit status: 0 done; 3 pyspark-client (or pyspark.pipelines) cannot be
# imported (kind "missing"); 4 a definition file failed (kind
# "definition", after the user's traceback on stderr); 5 the session or
# graph could not be set up (before any file).
import json
import os
import sys

# Run with `python -c`, __main__ has no __file__, which pyspark.sql.connect
# takes for a doctest run (and then goes looking for a JVM Spark).
if "__file__" not in globals():
    __file__ = "<weir_launch>"

import traceback
import types

EXIT_MISSING = 3
EXIT_DEFINITION = 4
EXIT_CLIENT = 5
ANALYSIS_CLASS = "ATTEMPT_ANALYSIS_IN_PIPELINE_QUERY_FUNCTION"
ANALYSIS_MESSAGE = ("Operations that trigger DataFrame analysis or execution "
                    "are not allowed in pipeline query functions. Move code "
                    "outside of the pipeline query function.")


class _Status:
    """The status channel to weir (None when run by hand)."""
    out = None


def open_status():
    fd = os.environ.pop("WEIR_STATUS_FD", None)
    if fd is None:
        return
    try:
        fd = int(fd)
        # Not for what a definition file starts.
        os.set_inheritable(fd, False)
        _Status.out = os.fdopen(fd, "w", encoding="utf-8", buffering=1)
    except (ValueError, OSError):
        _Status.out = None


def status(event, **fields):
    if _Status.out is None:
        return
    try:
        _Status.out.write(json.dumps({"event": event, **fields}) + "\n")
        _Status.out.flush()
    except (OSError, ValueError):
        # A definition file closed it: weir sees no "done".
        _Status.out = None


def report(kind, message, error_class="", path="", line=0, server=False):
    sys.stderr.flush()
    status("error", kind=kind, message=message, error_class=error_class,
           path=path, line=line, server=server)


def load_shim(source):
    shim = types.ModuleType("weir_dp_shim")
    shim.__file__ = "<weir_dp_shim>"
    exec(compile(source, shim.__file__, "exec"), shim.__dict__)
    sys.modules[shim.__name__] = shim
    return shim


def session_builder(SparkSession):
    """The session's builder: over weir's one-time endpoint, an abstract
    unix-domain socket that serves weir's children only
    (WEIR_CONNECT_SOCKET, WEIR_CONNECT_TOKEN); else SPARK_REMOTE (`weir
    run --remote`)."""
    socket = os.environ.pop("WEIR_CONNECT_SOCKET", None)
    token = os.environ.pop("WEIR_CONNECT_TOKEN", None)
    if socket is None:
        return SparkSession.builder
    import grpc
    from pyspark.sql.connect.client.core import ChannelBuilder
    from pyspark.sql.connect.session import SparkSession as ConnectSession

    target = ("unix-abstract:" + socket[1:] if socket.startswith("@")
              else "unix:" + socket)

    class WeirChannel(ChannelBuilder):
        @property
        def host(self):
            return "localhost"

        def metadata(self):
            return [("authorization", f"Bearer {token}")]

        def toChannel(self):
            return self._insecure_channel(target)

    # Definition files that ask for a session (SparkSession.builder
    # .getOrCreate(), SparkSession.active()) get this one; the URL is
    # never dialled (port 0).
    os.environ["SPARK_CONNECT_MODE_ENABLED"] = "1"
    os.environ["SPARK_REMOTE"] = "sc://localhost:0"
    return ConnectSession.builder.channelBuilder(WeirChannel())


def spec_settings(spec_path):
    """catalog, database and configuration of the spec (weir checked it)."""
    import yaml

    with open(spec_path, encoding="utf-8") as f:
        data = yaml.safe_load(f) or {}
    conf = data.get("configuration") or {}
    return (data.get("catalog"), data.get("database", data.get("schema")),
            {str(k): str(v) for k, v in conf.items()})


def analysis_blocker():
    """A context manager under which query functions run: eager analysis
    or execution fails with ATTEMPT_ANALYSIS_IN_PIPELINE_QUERY_FUNCTION, as
    in Spark (4.1 checks it in the client, 4.2 in the server)."""
    from contextlib import contextmanager

    from pyspark.errors import PySparkException
    from pyspark.sql.connect.proto.base_pb2_grpc import SparkConnectServiceStub

    blocked = ("AnalyzePlan", "ExecutePlan")

    def is_sql_command(name, args):
        if name != "ExecutePlan" or not args:
            return False
        plan = getattr(args[0], "plan", None)
        return (plan is not None and plan.HasField("command")
                and plan.command.HasField("sql_command"))

    @contextmanager
    def block():
        original = SparkConnectServiceStub.__getattribute__

        def guarded(self, name):
            method = original(self, name)
            if name not in blocked:
                return method

            def call(*args, **kwargs):
                if is_sql_command(name, args):
                    return method(*args, **kwargs)
                # 4.2's error catalog no longer has the class: give the
                # message too.
                raise PySparkException(
                    message=ANALYSIS_MESSAGE,
                    errorClass=ANALYSIS_CLASS, messageParameters={})

            return call

        SparkConnectServiceStub.__getattribute__ = guarded
        try:
            yield
        finally:
            SparkConnectServiceStub.__getattribute__ = original

    return block


def user_location(exc, files):
    """(path, line) of the innermost traceback frame in a definition file,
    else where the shim says the failing flow was defined."""
    found = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if os.path.abspath(frame.filename) in files:
            found = (frame.filename, frame.lineno)
    if isinstance(exc, SyntaxError) and exc.filename and \
            os.path.abspath(exc.filename) in files:
        found = (exc.filename, exc.lineno or 0)
    if found is None and getattr(exc, "__weir_location__", None):
        found = exc.__weir_location__
    return found


def print_user_traceback(exc, files):
    """The traceback's frames in definition files (pyspark's and the
    launcher's own are noise), at most 8, then the exception."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if os.path.abspath(f.filename) in files]
    out = []
    if frames:
        out.append("Traceback (most recent call last, definition files only):\n")
        out += traceback.format_list(frames[-8:])
    out += traceback.format_exception_only(type(exc), exc)
    sys.stderr.write("".join(out))


def error_class_of(exc):
    for getter in ("getCondition", "getErrorClass"):
        fn = getattr(exc, getter, None)
        if callable(fn):
            try:
                value = fn()
            except Exception:
                value = None
            if value:
                return str(value)
    return ""


def message_of(exc):
    text = str(exc).strip().splitlines()
    first = text[0] if text else ""
    if error_class_of(exc):
        # PySpark prefixes its messages with "[CLASS] ".
        cls = error_class_of(exc)
        if first.startswith(f"[{cls}] "):
            first = first[len(cls) + 3:]
        return first
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


def main(argv):
    open_status()
    if len(argv) < 2:
        print("usage: weir_launch SHIM_SOURCE SPEC_PATH FILE...", file=sys.stderr)
        return 2
    shim_source, spec_path, rel_files = argv[0], argv[1], argv[2:]
    try:
        from pyspark import pipelines as dp
        from pyspark.pipelines import api
        from pyspark.pipelines.add_pipeline_analysis_context import (
            add_pipeline_analysis_context,
        )
        from pyspark.pipelines.block_session_mutations import (
            block_session_mutations,
        )
        from pyspark.pipelines.graph_element_registry import (
            graph_element_registration_context,
        )
        from pyspark.pipelines.spark_connect_graph_element_registry import (
            SparkConnectGraphElementRegistry,
        )
        from pyspark.pipelines.spark_connect_pipeline import (
            create_dataflow_graph,
        )
        from pyspark.sql import SparkSession
    except ImportError as e:
        report("missing", f"{type(e).__name__}: {e}")
        return EXIT_MISSING
    import importlib.util

    shim = load_shim(shim_source)
    shim.install(dp, api)
    root = os.path.dirname(os.path.abspath(spec_path))
    files = {os.path.join(root, f): f for f in rel_files}
    current = graph_id = None
    try:
        catalog, database, conf = spec_settings(spec_path)
        # weir's configuration after the environment and --conf overrides;
        # the pipeline weir registers into has the environment's catalog
        # and database already.
        effective = os.environ.get("WEIR_PIPELINE_CONF")
        if effective is not None:
            conf = {str(k): str(v) for k, v in json.loads(effective).items()}
            catalog = database = None
        builder = session_builder(SparkSession).config(
            "spark.sql.connect.serverStacktrace.enabled", "false")
        for key, value in conf.items():
            builder = builder.config(key, value)
        spark = builder.getOrCreate()
        # Registration commands are short and on loopback: no reattachable
        # execution, which costs a ReleaseExecute call (and a thread-pool
        # hop in the client) after every command.
        client = getattr(spark, "client", None)
        if hasattr(client, "disable_reattachable_execute"):
            client.disable_reattachable_execute()
        # `weir run --remote`: weir created the graph on the remote server
        # (and sent the SQL files) in this same session; it runs it after.
        graph_id = os.environ.get("WEIR_GRAPH_ID")
        remote = graph_id is not None
        if not remote:
            graph_id = create_dataflow_graph(spark, default_catalog=catalog,
                                             default_database=database,
                                             sql_conf=conf)
        registry = shim.DeferringRegistry(
            SparkConnectGraphElementRegistry(spark, graph_id),
            analysis_blocker())
        shim._State.registry = registry
        with graph_element_registration_context(registry):
            for index, rel in enumerate(rel_files):
                current = rel
                path = os.path.join(root, rel)
                status("importing", file=index)
                name = os.path.splitext(os.path.basename(path))[0]
                module_spec = importlib.util.spec_from_file_location(name, path)
                module = importlib.util.module_from_spec(module_spec)
                # pyspark 4.2 gives each file `spark`; 4.1 files call
                # SparkSession.active(). Both work here.
                module.__dict__["spark"] = spark
                with add_pipeline_analysis_context(
                        spark=spark, dataflow_graph_id=graph_id,
                        flow_name=None):
                    with block_session_mutations():
                        module_spec.loader.exec_module(module)
                        registry.flush()
        current = None
        if not remote:
            # Stopping releases the session, and with it a remote graph.
            spark.stop()
    except BaseException as e:
        if isinstance(e, KeyboardInterrupt):
            raise
        if current is None and graph_id is None:
            traceback.print_exc()
            return EXIT_CLIENT
        where = user_location(e, files)
        if where is None and current is not None:
            where = (os.path.join(root, current), 0)
        path, line = where if where else ("", 0)
        if path and os.path.abspath(path) in files:
            path = files[os.path.abspath(path)]
        elif path:
            path = os.path.relpath(path, root) if path.startswith(root + os.sep) else path
        # An error the endpoint answered: weir prints its own diagnostic.
        server = type(e).__module__.startswith("pyspark.errors.exceptions.connect")
        print_user_traceback(e, set(files))
        report("definition", message_of(e), error_class_of(e), path,
               line or 0, server)
        return EXIT_DEFINITION
    status("done", files=len(rel_files))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
