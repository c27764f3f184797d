# weir's Databricks compatibility shim for pyspark.pipelines.
#
# Loaded by weir's launcher before any definition file, it adds the
# Databricks spellings that open-source pyspark lacks, without changing
# pyspark itself:
#
#   dp.expect, dp.expect_or_drop, dp.expect_or_fail, dp.expect_all,
#   dp.expect_all_or_drop, dp.expect_all_or_fail        (Databricks)
#   dp.expect_or_quarantine, dp.expect_all_or_quarantine  (weir only)
#   dp.append_flow(..., once=, comment=, import_checkpoint=)
#   dp.create_streaming_table(..., expect_all=, expect_all_or_drop=,
#                             expect_all_or_fail=)
#   dp.create_table(...)  the same as create_streaming_table (the spelling
#                         of Databricks' import_checkpoint examples)
#
# What reaches weir's Spark Connect endpoint (keys of DefineFlow.sql_conf,
# removed by the server before the flow's own confs are kept):
#
#   weir.expectations           JSON list of {"name", "constraint",
#                               "action"}, action one of "warn", "drop",
#                               "fail", "quarantine"; they become
#                               expectations of the flow's target dataset
#   weir.flow.once              "true" for append_flow(once=True)
#   weir.flow.import_checkpoint the path given to append_flow(
#                               import_checkpoint=...): the Spark
#                               checkpoint the flow imports on its first
#                               update (docs/import-checkpoint.md)
#
# create_streaming_table's expect_all* become the table properties
# pipelines.expect[_or_drop|_or_fail].<name> that weir already reads.
#
# Expectation decorators may sit above or below @dp.table /
# @dp.materialized_view / @dp.temporary_view / @dp.append_flow. Below, they
# mark the function; above, they receive the None the pyspark decorator
# returns and apply to the flow it just defined. So that both work, the
# registry wrapper holds each flow back until the next definition (or the
# end of the file) before sending it.
import dataclasses
import json
import sys
from contextlib import contextmanager

_ATTR = "__weir_expectations__"
_ACTIONS = ("warn", "drop", "fail", "quarantine")


class _State:
    """The launcher's registry wrapper registers itself here."""

    registry = None


def _check_str(what, value):
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a string, got {type(value).__name__}")


def _expectation_decorator(rules, action):
    for name, constraint in rules:
        _check_str("expectation name", name)
        _check_str(f"the constraint of expectation '{name}'", constraint)
    added = [{"name": n, "constraint": c, "action": action} for n, c in rules]

    def decorate(target):
        if target is None:
            # Above a pyspark decorator: that flow was just defined.
            reg = _State.registry
            if reg is None or not reg.add_to_pending(added):
                raise RuntimeError(
                    "an expectation decorator must decorate a dataset or "
                    "flow definition (@dp.table, @dp.materialized_view, "
                    "@dp.temporary_view or @dp.append_flow)"
                )
            return None
        if not callable(target):
            raise TypeError("expectation decorators apply to query functions")
        # Decorators apply bottom-up: keep the order they are written in.
        setattr(target, _ATTR, added + list(getattr(target, _ATTR, [])))
        return target

    return decorate


def _one(action):
    def expect(name, constraint):
        return _expectation_decorator([(name, constraint)], action)

    return expect


def _all(action):
    def expect_all(expectations):
        if not isinstance(expectations, dict):
            raise TypeError("expect_all* take a dict of {name: constraint}")
        return _expectation_decorator(list(expectations.items()), action)

    return expect_all


expect = _one("warn")
expect_or_drop = _one("drop")
expect_or_fail = _one("fail")
expect_or_quarantine = _one("quarantine")
expect_all = _all("warn")
expect_all_or_drop = _all("drop")
expect_all_or_fail = _all("fail")
expect_all_or_quarantine = _all("quarantine")


def _flow_conf(flow, extra):
    """The flow with its expectations and options in sql_conf."""
    conf = dict(flow.spark_conf or {})
    rules = list(extra.get("rules", [])) + list(getattr(flow.func, _ATTR, []))
    if rules:
        known = json.loads(conf.get("weir.expectations", "[]"))
        conf["weir.expectations"] = json.dumps(known + rules)
    conf.update(extra.get("conf", {}))
    return dataclasses.replace(flow, spark_conf=conf)


class DeferringRegistry:
    """Wraps pyspark's SparkConnectGraphElementRegistry: outputs and SQL go
    through at once, each flow is sent when the next definition comes (or
    at flush), so expectation decorators written above it still apply."""

    def __init__(self, inner, block_analysis):
        self._inner = inner
        self._block = block_analysis
        self._pending = None  # (flow, {"rules": [...], "conf": {...}})
        self._caller = None  # user location for wrapped pyspark calls
        self._next_conf = None  # options of the next flow (append_flow)

    # -- helpers for the shim's wrappers
    def add_to_pending(self, rules):
        if self._pending is None:
            return False
        # Decorators apply bottom-up: the one written higher comes later.
        extra = self._pending[1]
        extra["rules"] = list(rules) + extra.get("rules", [])
        return True

    def add_conf_to_next(self, conf):
        self._next_conf = conf

    def _fix_location(self, element):
        loc = getattr(element, "source_code_location", None)
        if self._caller is not None and loc is not None and \
                loc.filename == __file__:
            return dataclasses.replace(element,
                                       source_code_location=self._caller)
        return element

    def flush(self):
        if self._pending is None:
            return
        flow, extra = self._pending
        self._pending = None
        flow = _flow_conf(flow, extra)
        func = flow.func
        block = self._block

        def query_function():
            with block():
                return func()

        flow = dataclasses.replace(flow, func=query_function)
        try:
            self._inner.register_flow(flow)
        except BaseException as e:
            loc = flow.source_code_location
            if not hasattr(e, "__weir_location__"):
                try:
                    e.__weir_location__ = (loc.filename, loc.line_number)
                except AttributeError:
                    pass
            raise

    # -- GraphElementRegistry
    def register_output(self, output):
        self.flush()
        self._inner.register_output(self._fix_location(output))

    def register_flow(self, flow):
        self.flush()
        extra = {"conf": self._next_conf or {}}
        self._next_conf = None
        self._pending = (self._fix_location(flow), extra)

    def register_auto_cdc_flow(self, flow):
        self.flush()
        self._inner.register_auto_cdc_flow(self._fix_location(flow))

    def register_sql(self, sql_text, file_path):
        self.flush()
        self._inner.register_sql(sql_text, file_path)


def _user_location(depth):
    """The file and line of the frame depth levels above the caller."""
    from pyspark.pipelines.source_code_location import SourceCodeLocation

    frame = sys._getframe(depth + 1)
    return SourceCodeLocation(filename=frame.f_code.co_filename,
                              line_number=frame.f_lineno)


@contextmanager
def _located(location):
    """While a wrapped pyspark function runs, the location the registry
    puts on what it registers from the shim's own frames."""
    reg = _State.registry
    if reg is None:
        yield
        return
    saved = reg._caller
    reg._caller = location
    try:
        yield
    finally:
        reg._caller = saved


def install(dp, api):
    """Add the Databricks spellings to the pyspark.pipelines module dp."""
    original_append_flow = api.append_flow
    original_create_streaming_table = api.create_streaming_table

    def append_flow(*, target, name=None, spark_conf=None, comment=None,
                    once=False, import_checkpoint=None):
        conf = {}
        if once:
            conf["weir.flow.once"] = "true"
        if import_checkpoint is not None:
            _check_str("import_checkpoint", import_checkpoint)
            conf["weir.flow.import_checkpoint"] = import_checkpoint
        where = _user_location(1)
        with _located(where):
            inner = original_append_flow(target=target, name=name,
                                         spark_conf=spark_conf)

        def outer(func):
            reg = _State.registry
            if reg is not None:
                reg.add_conf_to_next(conf)
            with _located(where):
                inner(func)
            return None

        return outer

    def create_streaming_table(name, *, comment=None, table_properties=None,
                               partition_cols=None, cluster_by=None,
                               schema=None, format=None, expect_all=None,
                               expect_all_or_drop=None,
                               expect_all_or_fail=None,
                               expect_all_or_quarantine=None):
        props = dict(table_properties or {})
        for rules, prefix in ((expect_all, "expect"),
                              (expect_all_or_drop, "expect_or_drop"),
                              (expect_all_or_fail, "expect_or_fail"),
                              (expect_all_or_quarantine,
                               "expect_or_quarantine")):
            for rule_name, constraint in (rules or {}).items():
                _check_str("expectation name", rule_name)
                _check_str(f"the constraint of expectation '{rule_name}'",
                           constraint)
                props[f"pipelines.{prefix}.{rule_name}"] = constraint
        kwargs = {}
        if format is not None:
            kwargs["format"] = format
        with _located(_user_location(1)):
            return original_create_streaming_table(
                name, comment=comment, table_properties=props or None,
                partition_cols=partition_cols, cluster_by=cluster_by,
                schema=schema, **kwargs)

    for mod in (dp, api):
        mod.append_flow = append_flow
        mod.create_streaming_table = create_streaming_table
    # Databricks' name for a table that flows fill, as in its
    # import_checkpoint examples; pyspark has no other create_table.
    if not hasattr(dp, "create_table"):
        dp.create_table = create_streaming_table
    for fname in ("expect", "expect_or_drop", "expect_or_fail",
                  "expect_or_quarantine", "expect_all", "expect_all_or_drop",
                  "expect_all_or_fail", "expect_all_or_quarantine"):
        setattr(dp, fname, globals()[fname])
