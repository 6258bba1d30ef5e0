#!/usr/bin/env bash
# test_gen_pages.sh - scripts/gen-pages.sh on a scratch copy of the
# repository's sources: --check passes on fresh pages and fails, saying how
# to refresh them, on an edited number, a missing picture and an extra
# page; writing restores them; a collspec that fails stops it with exit 2.
#
# usage: test_gen_pages.sh GEN_PAGES_SH COLLSPEC SOURCE_ROOT

set -uo pipefail
gen=$1
collspec=$2
src=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# run EXPECTED_RC WHAT ARGS...: gen-pages.sh ARGS must exit EXPECTED_RC
run() {
	local want=$1 what=$2 rc
	shift 2
	bash "$gen" "$@" >"$tmp/out" 2>&1
	rc=$?
	[ $rc = "$want" ] || fail "$what: exit $rc, expected $want: $(head -5 "$tmp/out")"
}

r=$tmp/root
mkdir -p "$r/spec" "$r/docs"
cp "$src/spec/collectives.md" "$src/spec/patterns.md" "$r/spec/"
cp "$src/docs/reliability.md" "$r/docs/"

run 1 "check with no pages" --check "$collspec" "$r"
run 0 "writing the pages" "$collspec" "$r"
run 0 "check right after writing" --check "$collspec" "$r"
[ "$(ls "$r/docs/collectives"/*.svg | wc -l)" = 10 ] ||
	fail "expected 10 pictures in docs/collectives"
[ "$(ls "$r/docs/parallelism"/*.md | wc -l)" = 10 ] ||
	fail "expected 9 parallelism pages and their README"

# a number changed by hand: 136 bytes (spec/patterns.md 5.1's example)
grep -q '| bwd | `dp` | allreduce | avg | 16 | 136 | 136 | 136 | 136 |' \
	"$r/docs/parallelism/dp.md" ||
	fail "dp.md lacks spec/patterns.md 5.1's 136 bytes per rank"
sed -i 's/| 136 | 136 | 136 | 136 |/| 136 | 136 | 137 | 136 |/' "$r/docs/parallelism/dp.md"
run 1 "check after a number was edited" --check "$collspec" "$r"
grep -q 'docs/parallelism is stale: regenerate it with `make docs`' "$tmp/out" ||
	fail "the stale message does not say how to refresh: $(head -3 "$tmp/out")"
grep -q '^  -| bwd .* 137 ' "$tmp/out" || fail "the diff does not show the edited line"
run 0 "rewriting" "$collspec" "$r"

rm "$r/docs/collectives/gather.svg"
run 1 "check with a picture missing" --check "$collspec" "$r"
run 0 "rewriting" "$collspec" "$r"
echo "# old" >"$r/docs/collectives/bcast.md"
run 1 "check with a page no collective has" --check "$collspec" "$r"
rm "$r/docs/collectives/bcast.md"

run 2 "a collspec that is not a program" --check "$tmp/none" "$r"
printf '#!/bin/sh\necho broken >&2\nexit 3\n' >"$tmp/bad"
chmod +x "$tmp/bad"
run 2 "a collspec that fails" --check "$tmp/bad" "$r"
grep -q 'collspec list failed: broken' "$tmp/out" ||
	fail "a failing collspec is not named: $(head -3 "$tmp/out")"

[ $fails = 0 ] && echo "PASS: gen-pages.sh writes, checks and refuses as expected"
[ $fails = 0 ]
