#!/usr/bin/env python3
"""check_otlp.py TWICE SOURCE_ROOT  (or: check_otlp.py --validate FILE.json)

`twice run --otlp` against OTLP's JSON Protobuf Encoding, field by field:
opentelemetry-proto docs/specification.md ("JSON Protobuf Encoding": proto3's
JSON mapping with lowerCamelCase keys, traceId/spanId as hex rather than
base64, enums as integers; 64-bit integers as decimal strings) and the messages
of opentelemetry/proto/trace/v1/trace.proto, common/v1/common.proto and
resource/v1/resource.proto. Then the facts the double refund must show, that
the same run writes the same bytes, that bad usage exits 2, and that the
validator itself rejects files broken in the ways a writer gets this wrong.
"""
import copy
import json
import os
import re
import subprocess
import sys
import tempfile

HEX32 = re.compile(r"^[0-9a-f]{32}$")
HEX16 = re.compile(r"^[0-9a-f]{16}$")
UINT = re.compile(r"^[0-9]+$")
INT = re.compile(r"^-?[0-9]+$")
ANY_VALUE_FIELDS = {"stringValue", "boolValue", "intValue", "doubleValue", "arrayValue", "kvlistValue", "bytesValue"}
# The fields each message has, in their JSON (lowerCamelCase) names.
FIELDS = {
    "request": {"resourceSpans"},
    "resourceSpans": {"resource", "scopeSpans", "schemaUrl"},
    "resource": {"attributes", "droppedAttributesCount", "entityRefs"},
    "scopeSpans": {"scope", "spans", "schemaUrl"},
    "scope": {"name", "version", "attributes", "droppedAttributesCount"},
    "span": {"traceId", "spanId", "traceState", "parentSpanId", "flags", "name", "kind", "startTimeUnixNano",
             "endTimeUnixNano", "attributes", "droppedAttributesCount", "events", "droppedEventsCount", "links",
             "droppedLinksCount", "status"},
    "event": {"timeUnixNano", "name", "attributes", "droppedAttributesCount"},
    "status": {"message", "code"},
}


class Checker:
    def __init__(self):
        self.problems = []

    def bad(self, where, what):
        self.problems.append(f"{where}: {what}")

    def fields(self, where, obj, message, required=()):
        if not isinstance(obj, dict):
            self.bad(where, f"expected an object ({message}), found {type(obj).__name__}")
            return False
        for key in obj:
            if key not in FIELDS[message]:
                self.bad(where, f"unknown field {key!r} of {message} (snake_case, or not in the .proto)")
        missing = [key for key in required if key not in obj]
        for key in missing:
            self.bad(where, f"missing {key!r}")
        return not missing

    def string(self, where, value, pattern=None, what="a string"):
        if not isinstance(value, str) or (pattern is not None and not pattern.match(value)):
            self.bad(where, f"expected {what}, found {value!r}")
            return False
        return True

    def integer(self, where, value, low, high):
        # An enum or int32 is a JSON number (OTLP forbids enum names).
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            self.bad(where, f"expected an integer from {low} to {high}, found {value!r}")

    def nanos(self, where, value):
        # fixed64: a decimal string in proto3 JSON.
        if self.string(where, value, UINT, "a decimal string (fixed64 nanoseconds)") and int(value) >= 2**64:
            self.bad(where, f"{value} does not fit a fixed64")
        return int(value) if isinstance(value, str) and UINT.match(value) else None

    def any_value(self, where, value):
        if not isinstance(value, dict) or len(value) != 1 or next(iter(value)) not in ANY_VALUE_FIELDS:
            self.bad(where, f"expected an AnyValue with exactly one typed value, found {value!r}")
            return
        kind, v = next(iter(value.items()))
        if kind == "stringValue":
            self.string(where, v)
        elif kind == "boolValue" and not isinstance(v, bool):
            self.bad(where, f"boolValue {v!r} is not a JSON boolean")
        elif kind == "intValue":
            if self.string(where, v, INT, "intValue as a decimal string (int64)") and not -(2**63) <= int(v) < 2**63:
                self.bad(where, f"intValue {v} does not fit an int64")
        elif kind == "doubleValue" and (isinstance(v, bool) or not isinstance(v, (int, float))):
            self.bad(where, f"doubleValue {v!r} is not a number")
        elif kind == "arrayValue":
            if not isinstance(v, dict) or set(v) - {"values"}:
                self.bad(where, f"arrayValue {v!r} is not {{\"values\": [...]}}")
            else:
                for i, item in enumerate(v.get("values", [])):
                    self.any_value(f"{where}.values[{i}]", item)
        elif kind == "kvlistValue":
            self.attributes(where, v.get("values", []) if isinstance(v, dict) else None)

    def attributes(self, where, attrs):
        if not isinstance(attrs, list):
            self.bad(where, f"attributes must be a list of KeyValue, found {attrs!r}")
            return {}
        seen = {}
        for i, kv in enumerate(attrs):
            w = f"{where}.attributes[{i}]"
            if not isinstance(kv, dict) or set(kv) != {"key", "value"}:
                self.bad(w, f"expected {{\"key\", \"value\"}}, found {kv!r}")
                continue
            if self.string(w, kv["key"], re.compile(r"^.+$"), "a non-empty key"):
                if kv["key"] in seen:
                    self.bad(w, f"the key {kv['key']!r} twice (attribute keys are unique)")
                seen[kv["key"]] = kv["value"]
            self.any_value(f"{w}.value", kv["value"])
        return seen

    def request(self, doc):
        """Every span, as (its JSON, its attributes as a dict)."""
        spans = []
        if not self.fields("request", doc, "request", ["resourceSpans"]):
            return spans
        if not isinstance(doc.get("resourceSpans"), list) or not doc["resourceSpans"]:
            self.bad("request", "resourceSpans must be a non-empty list")
            return spans
        for r, rs in enumerate(doc["resourceSpans"]):
            w = f"resourceSpans[{r}]"
            if not self.fields(w, rs, "resourceSpans", ["scopeSpans"]):
                continue
            if self.fields(f"{w}.resource", rs.get("resource"), "resource", ["attributes"]):
                self.attributes(f"{w}.resource", rs["resource"]["attributes"])
            for s, ss in enumerate(rs.get("scopeSpans") or []):
                ws = f"{w}.scopeSpans[{s}]"
                if not self.fields(ws, ss, "scopeSpans", ["scope", "spans"]):
                    continue
                if self.fields(f"{ws}.scope", ss.get("scope"), "scope", ["name"]):
                    self.string(f"{ws}.scope.name", ss["scope"]["name"])
                for i, span in enumerate(ss.get("spans") or []):
                    spans.append((span, self.span(f"{ws}.spans[{i}]", span)))
        self.links(spans)
        return spans

    def span(self, w, span):
        if not self.fields(w, span, "span", ["traceId", "spanId", "name", "kind", "startTimeUnixNano",
                                            "endTimeUnixNano"]):
            return {}
        self.string(f"{w}.traceId", span.get("traceId"), HEX32, "32 lowercase hex digits")
        self.string(f"{w}.spanId", span.get("spanId"), HEX16, "16 lowercase hex digits")
        for key in ("traceId", "spanId"):
            if isinstance(span.get(key), str) and set(span[key]) == {"0"}:
                self.bad(f"{w}.{key}", "all zeroes is an invalid id")
        if "parentSpanId" in span:
            self.string(f"{w}.parentSpanId", span["parentSpanId"], HEX16, "16 lowercase hex digits")
        self.string(f"{w}.name", span.get("name"), re.compile(r"^.+$"), "a non-empty name")
        self.integer(f"{w}.kind", span.get("kind"), 0, 5)
        start = self.nanos(f"{w}.startTimeUnixNano", span.get("startTimeUnixNano"))
        end = self.nanos(f"{w}.endTimeUnixNano", span.get("endTimeUnixNano"))
        if start is not None and end is not None and start > end:
            self.bad(w, f"starts ({start}) after it ends ({end})")
        attrs = self.attributes(w, span.get("attributes", []))
        for e, event in enumerate(span.get("events", [])):
            we = f"{w}.events[{e}]"
            if self.fields(we, event, "event", ["timeUnixNano", "name"]):
                self.nanos(f"{we}.timeUnixNano", event["timeUnixNano"])
                self.string(f"{we}.name", event["name"])
                self.attributes(we, event.get("attributes", []))
        if "status" in span and self.fields(f"{w}.status", span["status"], "status"):
            self.integer(f"{w}.status.code", span["status"].get("code", 0), 0, 2)
            if "message" in span["status"]:
                self.string(f"{w}.status.message", span["status"]["message"])
        return attrs

    def links(self, spans):
        ids = {}
        for span, _ in spans:
            if isinstance(span, dict) and isinstance(span.get("spanId"), str):
                if span["spanId"] in ids:
                    self.bad(f"span {span.get('name')!r}", f"spanId {span['spanId']} used twice")
                ids[span["spanId"]] = span.get("traceId")
        for span, _ in spans:
            if not isinstance(span, dict) or "parentSpanId" not in span:
                continue
            parent = span["parentSpanId"]
            if ids.get(parent, None) != span.get("traceId"):
                self.bad(f"span {span.get('name')!r}", f"parentSpanId {parent} is no span of its trace")


def problems_of(doc):
    c = Checker()
    c.request(doc)
    return c.problems


def value(attrs, key):
    v = attrs.get(key)
    return None if v is None else next(iter(v.values()))


def main():
    if sys.argv[1:2] == ["--validate"]:
        problems = problems_of(json.load(open(sys.argv[2])))
        print("\n".join(problems) or "valid OTLP/JSON")
        return 1 if problems else 0
    twice, root = os.path.realpath(sys.argv[1]), os.path.realpath(sys.argv[2])
    failures = []

    def check(ok, what):
        if not ok:
            failures.append(what)

    work = tempfile.mkdtemp()

    def run(*args):
        return subprocess.run([twice, *args], cwd=work, capture_output=True, text=True)

    def otlp(name):
        out = os.path.join(work, name + ".json")
        p = run("run", os.path.join(root, "scenarios", name + ".toml"), "--quiet", "--otlp", out)
        check(p.returncode in (0, 1), f"{name}: twice run exited {p.returncode}: {p.stderr}")
        text = open(out).read()
        check(text.endswith("}\n") and text.count("\n") == 1, f"{name}: not one line (a JSON Lines record)")
        doc = json.loads(text)
        for problem in problems_of(doc):
            failures.append(f"{name}: {problem}")
        spans = [(s, {kv["key"]: kv["value"] for kv in s.get("attributes", [])})
                 for rs in doc["resourceSpans"] for ss in rs["scopeSpans"] for s in ss["spans"]]
        return doc, spans, text

    # Valid for stories with relays, Kafka, Sidekiq, Pub/Sub, dead letters and crashes too.
    for name in ("outbox", "kafka_max_poll_interval", "sidekiq_retry_in_discard", "pubsub_redelivered_forever",
                 "retry_400", "liveness_kill_mid_write", "deploy_rolling_kill"):
        _, spans, _ = otlp(name)
        check(len(spans) > 0, f"{name}: no spans")

    doc, spans, text = otlp("double_refund")
    resource = {kv["key"]: kv["value"] for kv in doc["resourceSpans"][0]["resource"]["attributes"]}
    summary = json.loads(run("run", os.path.join(root, "scenarios", "double_refund.toml"), "--json").stdout)
    check(value(resource, "service.name") == "twice", "resource: service.name is not twice")
    check(value(resource, "twice.scenario") == "double_refund", "resource: twice.scenario")
    check(value(resource, "twice.seed") == "17", "resource: twice.seed is not 17")
    check(value(resource, "twice.trace_digest") == summary["trace_digest"],
          f"resource: twice.trace_digest is not the run's {summary['trace_digest']}")
    job = [(s, a) for s, a in spans if value(a, "twice.job_id") == "job_17"]
    check(len(job) == len(spans) and len({s["traceId"] for s, _ in job}) == 1, "job_17's spans do not share one traceId")
    roots = [s for s, _ in job if "parentSpanId" not in s]
    check(len(roots) == 1 and roots[0]["name"] == "job job_17", "job_17 has not one root span, job job_17")
    refunds = [(s, a) for s, a in job if value(a, "twice.tool") == "refund"]
    check(sorted(value(a, "twice.attempt") for _, a in refunds) == ["0", "1"],
          "double_refund: not two refund calls, attempts 0 and 1")
    check(sorted(value(a, "twice.delivery") for _, a in refunds) == ["1", "2"],
          "double_refund: the refunds are not in deliveries 1 and 2")
    check(all(s["kind"] == 3 for s, _ in refunds), "double_refund: a refund call is not kind CLIENT (3)")
    by_id = {s["spanId"]: (s, a) for s, a in spans}
    for s, a in refunds:
        parent, pa = by_id[s["parentSpanId"]]
        check(parent["name"] == f"delivery {value(a, 'twice.delivery')}" and parent["kind"] == 5,
              f"refund attempt {value(a, 'twice.attempt')}: its parent is not its delivery's CONSUMER span")
        check(int(parent["startTimeUnixNano"]) <= int(s["startTimeUnixNano"]), "a refund starts before its delivery")
    first = [s for s, a in spans if s["name"] == "delivery 1"]
    check(len(first) == 1 and first[0].get("status") == {"code": 2, "message": "ended by stop"},
          "double_refund: delivery 1 (killed by the deploy) is not an ERROR span ended by stop")
    check(roots[0]["startTimeUnixNano"] == "1767225600000000000", "the epoch is not 2026-01-01T00:00:00Z")
    _, _, again = otlp("double_refund")
    check(again == text, "double_refund: two runs wrote different bytes")

    _, fixed, _ = otlp("double_refund_fixed")
    fixed_refunds = [a for _, a in fixed if value(a, "twice.tool") == "refund"]
    check(len(fixed_refunds) >= 2 and [value(a, "twice.attempt") for a in fixed_refunds][:2] == ["0", "1"],
          "double_refund_fixed: no refund calls with attempts 0 and 1")
    check({value(a, "twice.idempotency_key") for a in fixed_refunds} == {"job_17:step_3:refund"},
          "double_refund_fixed: the refund calls do not carry the same key job_17:step_3:refund")

    # One file for two scenarios is bad usage, refused before anything runs.
    out = os.path.join(work, "two.json")
    p = run("run", os.path.join(root, "scenarios", "double_refund.toml"),
            os.path.join(root, "scenarios", "retry_400.toml"), "--otlp", out)
    check(p.returncode == 2, f"--otlp with two scenarios exited {p.returncode}, expected 2")
    check("--otlp writes one file; give exactly one scenario" in p.stderr, f"--otlp with two scenarios said: {p.stderr}")
    check(not os.path.exists(out), "--otlp with two scenarios wrote a file")

    # The validator catches each way a writer gets the mapping wrong.
    def broken(what, change):
        bad = copy.deepcopy(doc)
        change(bad["resourceSpans"][0]["scopeSpans"][0]["spans"], bad)
        check(problems_of(bad), f"the validator accepts a file with {what}")

    broken("a base64 traceId", lambda s, d: s[0].update(traceId="XCgBaK4hG2i+vLZidcgCLg=="))
    broken("an uppercase spanId", lambda s, d: s[1].update(spanId=s[1]["spanId"].upper()))
    broken("a numeric time", lambda s, d: s[0].update(startTimeUnixNano=1767225600000000000))
    broken("an enum name", lambda s, d: s[0].update(kind="SPAN_KIND_INTERNAL"))
    broken("a numeric intValue", lambda s, d: s[1]["attributes"][1].update(value={"intValue": 1}))
    broken("two typed values", lambda s, d: s[1]["attributes"][0].update(value={"stringValue": "a", "intValue": "1"}))
    broken("a snake_case field", lambda s, d: s[0].update(trace_id=s[0]["traceId"]))
    broken("a parent in another trace", lambda s, d: s[1].update(traceId="0" * 31 + "1"))
    broken("a span ending before it starts", lambda s, d: s[1].update(endTimeUnixNano="1"))
    broken("a repeated attribute key", lambda s, d: s[1]["attributes"].append(s[1]["attributes"][0]))
    broken("a missing scope", lambda s, d: d["resourceSpans"][0]["scopeSpans"][0].pop("scope"))

    for f in failures:
        print("FAIL:", f)
    print(f"{len(failures)} failure(s)" if failures else "OTLP/JSON checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
