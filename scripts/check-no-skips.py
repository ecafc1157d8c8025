#!/usr/bin/env python3
"""Fails when a CTest JUnit report (ctest --output-junit) holds skipped or not-run tests.

CI runs every test on a machine prepared by scripts/install-deps.sh, so a skip means a missing tool
or a broken environment, never something to accept silently. Usage: check-no-skips.py REPORT.xml
"""
import sys
import xml.etree.ElementTree as ET

root = ET.parse(sys.argv[1]).getroot()
skipped = []
for case in root.iter("testcase"):
    status = case.get("status", "")
    if case.find("skipped") is not None or status in ("notrun", "disabled"):
        skipped.append(case.get("name", "?"))
if skipped:
    print(f"check-no-skips: {len(skipped)} test(s) did not run (FLOWAGENT_NO_SKIP=1):", file=sys.stderr)
    for name in skipped:
        print(f"  {name}", file=sys.stderr)
    sys.exit(1)
print(f"check-no-skips: all {sum(1 for _ in root.iter('testcase'))} tests ran")
