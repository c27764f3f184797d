# Loaded by every Python of the Spark run of the Python pipeline corpus
# (tests/spark/python_pipelines.py puts this folder on PYTHONPATH for
# `spark-pipelines run`). Open-source pyspark has no expectations, and no
# `once=` on append_flow; the corpus projects use the Databricks spellings
# weir supports, so for Spark they get their OSS meaning here:
#   * expect_or_drop / expect_all_or_drop: a filter on the query
#     (the row is kept only when the constraint is true, as weir does);
#   * expect / expect_all / expect_or_fail / expect_all_or_fail: nothing
#     (warn keeps every row; the corpus data never breaks a fail rule);
#   * append_flow(once=True): Spark refuses a batch flow next to a
#     streaming one in a table (INTERNAL_ERROR, "Cannot find main error
#     class 'MATERIALIZED_VIEW_WITH_MULTIPLE_QUERIES'"), so the query
#     function runs with `spark.read` answering as `spark.readStream`: the
#     same files read as a stream, which on a first run are the same rows.
# The decorators must sit below @dp.table / @dp.materialized_view (the
# corpus writes them so); weir's shim accepts either order.
try:
    from pyspark import pipelines as _dp
except Exception:  # noqa: BLE001 - not a pyspark Python: nothing to do
    _dp = None

if _dp is not None and not hasattr(_dp, "expect"):
    import functools

    def _filtering(conds):
        def deco(fn):
            @functools.wraps(fn)
            def wrapped(*a, **k):
                df = fn(*a, **k)
                for c in conds:
                    df = df.where(c)
                return df
            return wrapped
        return deco

    def _keeping(fn):
        return fn

    def expect(name, constraint):
        return _keeping

    def expect_all(expectations):
        return _keeping

    def expect_or_drop(name, constraint):
        return _filtering([constraint])

    def expect_all_or_drop(expectations):
        return _filtering(list(expectations.values()))

    _dp.expect = expect
    _dp.expect_all = expect_all
    _dp.expect_or_fail = expect
    _dp.expect_all_or_fail = expect_all
    _dp.expect_or_drop = expect_or_drop
    _dp.expect_all_or_drop = expect_all_or_drop

    _append_flow = _dp.append_flow

    def _as_stream(fn):
        @functools.wraps(fn)
        def wrapped(*a, **k):
            from pyspark.sql.connect.session import SparkSession
            prop = SparkSession.read
            SparkSession.read = property(lambda self: self.readStream)
            try:
                return fn(*a, **k)
            finally:
                SparkSession.read = prop
        return wrapped

    def append_flow(*, once=False, comment=None, import_checkpoint=None, **kw):
        deco = _append_flow(**kw)
        return (lambda fn: deco(_as_stream(fn))) if once else deco

    _dp.append_flow = append_flow
