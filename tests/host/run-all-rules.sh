#!/bin/bash
# expect-results: 10 (tests/host/run fails this script with fewer result lines)
# tests/run-all's own rules, run against fake layers in a scratch tree (its
# runners are found relative to the script, its log under $BUILD): an
# undeclared SKIP fails, a declared one passes and is listed with its reason
# (a guest case's NAME taken as CASE/NAME), fewer results than a runner's
# "# expect-results" fail, no result at all fails, a runner's non-zero exit
# fails. The nested output is kept in files, never printed as result lines.
TOP=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d /tmp/run-all-rules.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tests/unit" "$tmp/tests/vm/cases"
cp "$TOP/tests/run-all" "$tmp/tests/run-all"

# runner BODY: the fake unit layer's runner
runner() { printf '#!/bin/sh\n%s\n' "$1" >"$tmp/tests/unit/run"; chmod +x "$tmp/tests/unit/run"; }
# try NAME: run the scratch run-all on the unit layer (its log in the scratch
# build, whatever CHECK_LOG the outer run has); rc in $rc, output in $tmp/NAME.out
try() { CHECK_LOG= BUILD=$tmp/build "$tmp/tests/run-all" unit >"$tmp/$1.out" 2>&1; rc=$?; }
ok() { echo "PASS: host_run_all/$1"; }
bad() { echo "FAIL: host_run_all/$1: $2 (output in the next lines)"; sed 's/^/    | /' "$3"; }

runner '# expect-results: 2
echo "PASS: a"; echo "SKIP: b: no tool"'
try undeclared
if [ $rc -ne 0 ] && grep -q '^FAIL: b: undeclared skip' "$tmp/undeclared.out"; then ok undeclared-skip-fails
else bad undeclared-skip-fails "exit $rc, no 'undeclared skip' FAIL" "$tmp/undeclared.out"; fi

printf '# may-skip: b -- not root on this machine\n' >"$tmp/tests/unit/skips"
try declared
if [ $rc -eq 0 ] && grep -q '^  b: not root on this machine$' "$tmp/declared.out" &&
	grep -q '^1 passed, 0 failed, 1 skipped$' "$tmp/declared.out"; then ok declared-skip-listed
else bad declared-skip-listed "exit $rc, or the reason not listed in the summary" "$tmp/declared.out"; fi
rm "$tmp/tests/unit/skips"

# a guest case's declaration names CASE/NAME: it must not cover a bare NAME
printf '# may-skip: b -- no such device feature\n' >"$tmp/tests/vm/cases/somecase.sh"
runner '# expect-results: 3
echo "PASS: a"; echo "SKIP: somecase/b: feature absent"; echo "SKIP: b: feature absent"'
try casescoped
if [ $rc -ne 0 ] && grep -q '^# declared skip: somecase/b: no such device feature' "$tmp/casescoped.out" &&
	grep -q '^FAIL: b: undeclared skip' "$tmp/casescoped.out"; then ok case-skip-scoped-to-case
else bad case-skip-scoped-to-case "exit $rc: somecase/b not declared, or bare b let through" "$tmp/casescoped.out"; fi
rm "$tmp/tests/vm/cases/somecase.sh"

runner '# expect-results: 3
echo "PASS: a"; echo "PASS: b"'
try fewer
if [ $rc -ne 0 ] && grep -q '^FAIL: unit: 2 results, fewer than the 3' "$tmp/fewer.out"; then ok fewer-results-fail
else bad fewer-results-fail "exit $rc, no 'fewer than' FAIL" "$tmp/fewer.out"; fi

runner '# expect-results: 2
echo "PASS: a"; echo "PASS: b"'
try enough
if [ $rc -eq 0 ] && grep -q '^2 passed, 0 failed, 0 skipped$' "$tmp/enough.out"; then ok declared-count-met-passes
else bad declared-count-met-passes "exit $rc with every declared result present" "$tmp/enough.out"; fi

runner 'echo "PASS: a"; echo "PASS: b"'
try nofloor
if [ $rc -ne 0 ] && grep -q "^FAIL: unit: its runner .* declares no '# expect-results: N'" "$tmp/nofloor.out"; then ok no-floor-fails
else bad no-floor-fails "exit $rc, a runner without a floor passed" "$tmp/nofloor.out"; fi

runner 'echo "all good, but no result line"'
try none
if [ $rc -ne 0 ] && grep -q '^FAIL: unit: no results' "$tmp/none.out"; then ok no-results-fail
else bad no-results-fail "exit $rc, no 'no results' FAIL" "$tmp/none.out"; fi

runner 'echo "PASS: a"; exit 3'
try exit3
if [ $rc -ne 0 ] && grep -q '^FAIL: unit: runner exited 3' "$tmp/exit3.out"; then ok runner-exit-fails
else bad runner-exit-fails "exit $rc, no 'runner exited' FAIL" "$tmp/exit3.out"; fi

# tests/host/run: a script that lost its executable mode fails, it does not
# drop out of the layer
mkdir -p "$tmp/tests/host"
cp "$TOP/tests/host/run" "$tmp/tests/host/run"
printf '#!/bin/sh\n# expect-results: 1\necho "PASS: x"\n' >"$tmp/tests/host/lost-mode.sh"
"$tmp/tests/host/run" >"$tmp/hostrun.out" 2>&1
if grep -q '^FAIL: host_lost-mode: .* is not executable' "$tmp/hostrun.out"; then ok host-run-non-executable-fails
else bad host-run-non-executable-fails "a non-executable host script was dropped silently" "$tmp/hostrun.out"; fi

# the scratch runs wrote their own log, not the real one
if [ -s "$tmp/build/check.log" ] && ! grep -q 'all good, but no result line' "${BUILD:-$TOP/build}/check.log" 2>/dev/null; then
	ok scratch-log-only
else
	echo "FAIL: host_run_all/scratch-log-only: the nested runs' log is missing or went to the real check.log"
fi
