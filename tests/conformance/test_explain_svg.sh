#!/usr/bin/env bash
# test_explain_svg.sh - `collspec explain COLL --svg FILE` and the SVGs of
# docs/collectives/: every picture is well-formed XML (xmllint) whose root
# is <svg>; its cells hold the numbers `collspec explain` prints, in order;
# and its labels say where each block goes, as worked out by hand from the
# definitions of spec/collectives.md section 2 (P = 3, n = 4: block b of
# a 12-element buffer is elements [4b, 4b+3]).
#
# usage: test_explain_svg.sh COLLSPEC DOCS_COLLECTIVES_DIR
# Exit status: 0 pass, 1 fail, 77 skip (no xmllint: apt-get install
# libxml2-utils, which scripts/setup.sh lists).

set -uo pipefail
collspec=$1
docs=$2
command -v xmllint >/dev/null || {
	echo "SKIP: xmllint not found (Debian: libxml2-utils)"
	exit 77
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# Well-formed, root <svg> in the SVG namespace, and at least $2 cells.
wellformed() {
	local f=$1 min=$2 root cells
	xmllint --noout "$f" 2>"$tmp/xerr" || {
		fail "$f is not well-formed XML: $(head -3 "$tmp/xerr")"
		return
	}
	root=$(xmllint --xpath 'concat(local-name(/*), " ", namespace-uri(/*))' "$f")
	[ "$root" = "svg http://www.w3.org/2000/svg" ] ||
		fail "$f: root element is '$root', expected svg in the SVG namespace"
	cells=$(grep -c 'class="v"' "$f")
	[ "$cells" -ge "$min" ] || fail "$f: $cells value cells, expected at least $min"
	grep -q 'href=\|xlink:\|@import\|url(' "$f" &&
		fail "$f refers to an external resource"
}

# The labels of a picture, in drawing order, joined by '|'.
labels() {
	grep -o 'class="l">[^<]*' "$1" | sed 's/^class="l">//' | paste -sd'|'
}

# explain COLL ARGS...: labels must equal $EXPECT, and the cells the
# numbers the text prints (rank by rank: send, then recv).
case_check() {
	local name=$1 got want
	shift
	if ! "$collspec" explain "$@" --svg "$tmp/$name.svg" >"$tmp/$name.txt"; then
		fail "$name: collspec explain $* --svg failed"
		return
	fi
	wellformed "$tmp/$name.svg" 1
	got=$(labels "$tmp/$name.svg")
	[ "$got" = "$EXPECT" ] ||
		fail "$name: labels (collspec explain $* --svg F)"$'\n'"  expected $EXPECT"$'\n'"  got      $got"
	want=$(grep -E '^ +(rank [0-9]+ +send|recv) ' "$tmp/$name.txt" |
		grep -o '\[[^]]*\]' | tr -d '[]' | tr ' ' '\n' | grep . | paste -sd' ')
	got=$(grep -o 'class="v">[^<]*' "$tmp/$name.svg" | sed 's/^class="v">//' |
		paste -sd' ')
	[ "$got" = "$want" ] ||
		fail "$name: cell values differ from the text example"$'\n'"  text $want"$'\n'"  svg  $got"
}

A='to r0|to r1|to r2'
EXPECT="$A|r0 [0-3]|r1 [0-3]|r2 [0-3]|$A|r0 [4-7]|r1 [4-7]|r2 [4-7]|$A|r0 [8-11]|r1 [8-11]|r2 [8-11]"
case_check alltoall alltoall
EXPECT='to all|r0 [0-3]|r1 [0-3]|r2 [0-3]|to all|r0 [0-3]|r1 [0-3]|r2 [0-3]|to all|r0 [0-3]|r1 [0-3]|r2 [0-3]'
case_check allgather allgather
EXPECT="$A|sum [0-3]|$A|sum [4-7]|$A|sum [8-11]"
case_check reducescatter reducescatter
EXPECT='to all|sum [0-3]|to all|sum [0-3]|to all|sum [0-3]'
case_check allreduce allreduce
EXPECT='to r1|to r1|max [0-3]|to r1'
case_check reduce reduce --root 1 --op max
EXPECT='r1 [0-3]|to all|r1 [0-3]|r1 [0-3]'
case_check broadcast broadcast --root 1
EXPECT='to r2|to r2|to r2|r0 [0-3]|r1 [0-3]|r2 [0-3]'
case_check gather gather --root 2
EXPECT="$A|r0 [0-3]|r0 [4-7]|r0 [8-11]"
case_check scatter scatter
EXPECT='to r1|r2 [0-3]|to r2|r0 [0-3]|to r0|r1 [0-3]'
case_check sendrecv sendrecv
# alltoallv, pattern uneven: the matrix the text prints is M = [5 3 1;
# 2 1 5; 6 3 3] (M[s][d] elements from s to d); rank d receives from s the
# M[s][d] elements at s's displacement for d, the sum of M[s][0..d-1]
EXPECT="$A|r0 [0-4]|r1 [0-1]|r2 [0-5]|$A|r0 [5-7]|r1 [2]|r2 [6-8]|$A|r0 [8]|r1 [3-7]|r2 [9-11]"
case_check alltoallv alltoallv
[ "$(sed -n '/count matrix/,/rank 0/p' "$tmp/alltoallv.txt" | grep -v rank |
	tail -3 | tr -s ' ' | paste -sd'|')" = ' 5 3 1| 2 1 5| 6 3 3' ] ||
	fail "alltoallv: the example's count matrix is not the one this test worked out"

# uint8 wraps: with 2 ranks and count 26, rank 1 sends 104..127, 0, 1, so
# 0 and 1 are both ranks' inputs; those cells have no single source and
# stay untinted and unlabelled (2 on each rank)
EXPECT='to r1|r1 [0-23]|to r0|r0 [2-25]'
case_check ambiguous sendrecv --dtype uint8 --ranks 2 --count 26
[ "$(grep -c 'fill="#ffffff" fill-opacity' "$tmp/ambiguous.svg")" = 4 ] ||
	fail "ambiguous: expected 4 untinted cells"

# the committed pictures of the teaching pages
n=0
for f in "$docs"/*.svg; do
	[ -e "$f" ] || break
	wellformed "$f" 12
	n=$((n + 1))
done
[ "$n" -ge 10 ] || fail "$docs holds $n pictures, expected one per collective (10)"

# bad input: exit 2 with the reason
"$collspec" explain allreduce --svg "$tmp/no/such/dir.svg" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc = 2 ] && grep -q "cannot write '$tmp/no/such/dir.svg'" "$tmp/err" ||
	fail "an unwritable --svg path: rc $rc, $(cat "$tmp/err")"
"$collspec" explain allreduce --svg >/dev/null 2>"$tmp/err"
rc=$?
[ $rc = 2 ] && grep -q "needs a value" "$tmp/err" ||
	fail "--svg without a file: rc $rc, $(cat "$tmp/err")"

[ $fails = 0 ] && echo "PASS: every picture well-formed, labels and cells as expected"
[ $fails = 0 ]
