#!/usr/bin/env python3
"""tests/check_labels.py CTEST BUILD_DIR LABEL... - the ctest unit.labels.

Reads every test of BUILD_DIR from `CTEST --show-only=json-v1` and fails
(exit 1, naming the tests) when a test carries no label, when a label is
not one of LABEL... (the list in tests/CMakeLists.txt), or when a test
named PREFIX.rest, PREFIX being a label, does not carry PREFIX, unless it
carries "sanitizer" instead (unit.tsan: minutes, not a quick unit test).
So `ctest -L unit` and the others run every test their names promise."""
import json
import subprocess
import sys


def main():
    if len(sys.argv) < 4:
        print("usage: check_labels.py CTEST BUILD_DIR LABEL...", file=sys.stderr)
        return 2
    ctest, build, known = sys.argv[1], sys.argv[2], set(sys.argv[3:])
    out = subprocess.run([ctest, "--test-dir", build, "--show-only=json-v1"],
                         check=True, capture_output=True, text=True).stdout
    tests = json.loads(out)["tests"]
    bad = []
    counts = {}
    for t in tests:
        name = t["name"]
        labels = next((p["value"] for p in t.get("properties", []) if p["name"] == "LABELS"), [])
        prefix = name.split(".", 1)[0] if "." in name else None
        if not labels:
            bad.append(f"{name}: no label")
        for label in labels:
            counts[label] = counts.get(label, 0) + 1
            if label not in known:
                bad.append(f"{name}: label '{label}' is not one of {' '.join(sorted(known))}")
        if labels and prefix in known and prefix not in labels and "sanitizer" not in labels:
            bad.append(f"{name}: no label '{prefix}' (labels: {' '.join(labels)})")
    print(f"{len(tests)} tests; by label: " +
          ", ".join(f"{k} {counts[k]}" for k in sorted(counts)))
    for line in bad:
        print("FAIL: " + line)
    return 1 if bad or not tests else 0


if __name__ == "__main__":
    sys.exit(main())
