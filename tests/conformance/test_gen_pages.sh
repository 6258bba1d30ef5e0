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

# figures worked out by hand. docs/reliability.md 4: "allreduce 11 times in
# rpp (and ar_rd_swap, ar_rd_promise beside) and 3 in ip, reducescatter 3 and 1, allgather 2 and 2, alltoall 2
# and 2, alltoallv 1 and 2, broadcast 3 and 1, reduce 1 and 3, gather 2
# and 1, scatter 2 and 1, sendrecv 2 and 1" mutants per collective; a
# page names them and links there (issue 21)
for cn in allreduce:16 reducescatter:4 allgather:4 alltoall:4 alltoallv:3 \
	broadcast:4 reduce:4 gather:3 scatter:3 sendrecv:3; do
	c=${cn%:*}
	line=$(grep '^[0-9]* mutants of \[docs/reliability.md\]' "$r/docs/collectives/$c.md")
	n=$(echo "$line" | sed 's/^[^:]*: //; s/\. That.*//' |
		grep -o '`[a-z0-9_]*`' | wc -l)
	[ "$n" = "${cn#*:}" ] && [ "${line%% *}" = "$n" ] ||
		fail "$c.md names $n mutants (says ${line%% *}), expected ${cn#*:}"
done
grep -q '^| result | .*x_q\[r n + i\].*§2\.3) |$' "$r/docs/collectives/reducescatter.md" ||
	fail "reducescatter.md: not the formula of spec/collectives.md 2.3"
grep -q '^No pattern of the patterns suite calls broadcast' \
	"$r/docs/collectives/broadcast.md" || fail "broadcast.md: a pattern calls it?"
# ZeRO-1 at P = 4, float32: N = 17 padded to 20; allreduce 2*20*4 = 160 B,
# allgather of the 5-element shard (5 + 20)*4 = 100 B on every rank
grep -q '| bwd | `dp` | allreduce | avg | 4 | 160 | 160 | 160 | 160 |' \
	"$r/docs/parallelism/zero.md" || fail "zero.md: ZeRO-1's allreduce is not 160 B"
grep -q '| opt | `dp` | allgather | none | 4 | 100 | 100 | 100 | 100 |' \
	"$r/docs/parallelism/zero.md" || fail "zero.md: ZeRO-1's allgather is not 100 B"

# the in-place row of every collective page states spec/collectives.md
# 3.2's rule with its qualifiers: "(not in NCCL)", "on the root", and
# reducescatter's unspecified blocks and other MPI layout
awk -F' [|] ' '/^### 3\.2 In place/ { on = 1; next } /^### / { on = 0 }
	on && /^[|] [a-z]+ [|]/ && $1 != "| collective" {
		sub(/^[|] /, ""); print $1 "\t" $2 }' \
	"$r/spec/collectives.md" >"$tmp/inplace"
[ "$(wc -l <"$tmp/inplace")" = 10 ] || fail "spec 3.2: not 10 in-place rows"
while IFS=$'\t' read -r c rule; do
	row=$(grep '^| in place |' "$r/docs/collectives/$c.md")
	ptr=$(echo "$rule" | sed 's/^`\([^`]*\)`.*/\1/; s/sendbuf/sendbuff/g;
		s/recvbuf/recvbuff/g; s/\*n$/*count/; s/ r\*/ rank*/')
	case $row in *"\`$ptr\`"*) ;; *) fail "$c.md: in place is not \`$ptr\`: $row" ;; esac
	for q in "not in NCCL" "on the root"; do
		case $rule in *"$q"*) case $row in *"$q"*) ;; *)
			fail "$c.md: in place lacks '$q': $row" ;; esac ;; esac
	done
done <"$tmp/inplace"
grep '^| in place |' "$r/docs/collectives/reducescatter.md" |
	grep -q 'unspecified.*MPI.*another layout' ||
	fail "reducescatter.md: in place says nothing of the unspecified blocks or MPI's layout"
# NCCL 2.28's calls (spec/collectives.md 2.11)
for cn in alltoall:ncclAlltoAll gather:ncclGather scatter:ncclScatter; do
	grep -q "^| NCCL | \`${cn#*:}\` (NCCL 2.28" "$r/docs/collectives/${cn%:*}.md" ||
		fail "${cn%:*}.md does not name ${cn#*:} of NCCL 2.28"
done
# the alltoall cost table says which row is multi-port
grep -q 'The `direct` row alone assumes a multi-port rank' \
	"$r/docs/collectives/alltoall.md" || fail "alltoall.md: no multi-port note"
# FSDP's page quotes the spec's Model paragraph (it was empty once)
grep -q '^> \*\*Model\.\*\* The MLP of §5.1' "$r/docs/parallelism/fsdp.md" ||
	fail "fsdp.md: the Model quote is not spec 5.3's"
# MoE exchanges its int64 counts: 8 bytes an element, said in the header
grep -q 'here int64 8 B, float32 4 B' "$r/docs/parallelism/moe.md" ||
	fail "moe.md: the header does not give int64's 8 bytes"
# ring and moe run the forward only and say so; dp runs a training step
for p in ring moe; do
	grep -q '(the forward pass only: the pattern has no backward;' \
		"$r/docs/parallelism/$p.md" || fail "$p.md: not said forward only"
	grep -q "^A training step's backward, which this pattern does not run" \
		"$r/docs/parallelism/$p.md" || fail "$p.md: no word on the backward"
done
grep -q 'or the forward pass only for `ring`, `moe`), from' \
	"$r/docs/collectives/sendrecv.md" || fail "sendrecv.md: ring not said forward only"
grep -q '(one training step; ' "$r/docs/parallelism/dp.md" ||
	fail "dp.md: not a training step"
grep -q 'forward pass only, with no backward: `ring`, `moe`\.' \
	"$r/docs/parallelism/README.md" || fail "README.md: forward-only list"
# pp quotes why it calls alltoallv and what its phases mean
grep -q '^> \*\*Calls\.\*\* The ABI has no addressed send/receive' \
	"$r/docs/parallelism/pp.md" || fail "pp.md: no Calls quote"

# ZeRO-1's second form, by reducescatter (spec 5.2): a reducescatter and
# an allgather of the 5-element shard, (5 + 20) * 4 = 100 B each
sed -n '/^## `zero1`, variant `rs-sgd`/,/^## `zero2`/p' \
	"$r/docs/parallelism/zero.md" >"$tmp/z1rs"
grep -q '| bwd | `dp` | reducescatter | avg | 4 | 100 | 100 | 100 | 100 |' \
	"$tmp/z1rs" || fail "zero.md: no ZeRO-1 by reducescatter section"
grep -q 'Variants (`collspec list`): ar-sgd ar-adam rs-sgd rs-adam;' \
	"$r/docs/parallelism/zero.md" || fail "zero.md: zero1's variants"
# wire bytes, by hand with the ring's b(P) at P = 4 (docs/model.md 1.1):
# zero1 ar's allreduce of n = 20 * 4 = 80 B sends 2 * 3/4 * 80 = 120 B,
# an allgather of n = 80 B (the whole result) 3/4 * 80 = 60 B; dp's
# allreduces of 17 elements, 2 * 3/4 * 68 = 102 B; ring's three sendrecvs
# of 64 float32 send 3 * 256 = 768 B
grep -q '| bwd | `dp` | allreduce | avg | 4 | 160 | 160 | 160 | 160 | 120 (ring) |' \
	"$r/docs/parallelism/zero.md" || fail "zero.md: zero1's allreduce is not 120 B on the wire"
grep -q '| opt | `dp` | allgather | none | 4 | 100 | 100 | 100 | 100 | 60 (ring) |' \
	"$r/docs/parallelism/zero.md" || fail "zero.md: an allgather is not 60 B on the wire"
grep -q 'allreduce | avg | 16 | 136 | 136 | 136 | 136 | 102 (ring) |' \
	"$r/docs/parallelism/dp.md" || fail "dp.md: not 102 B on the wire"
grep -q '| fwd | `cp` | sendrecv | none | 12 | 1536 | 1536 | 1536 | 1536 | 768 (direct) |' \
	"$r/docs/parallelism/ring.md" || fail "ring.md: not 768 B on the wire"
# against dp: zero2 and zero1 rs 120 / 102 = 1.18 on the wire, all of it
# padding (20 / 17); zero3 and fsdp 180 / 102 = 1.76, 1.5 without it
grep -c 'on the wire 120 B, 1.18 x dp.s 102 B.*without it the wire ratio is 1.00\.' \
	"$r/docs/parallelism/zero.md" | grep -qx 2 || fail "zero.md: zero2 and zero1 rs against dp"
grep -q 'on the wire 180 B, 1.76 x dp.s 102 B.*without it the wire ratio is 1.50\.' \
	"$r/docs/parallelism/fsdp.md" || fail "fsdp.md: against dp"

# issue 21: every parallelism page has Pictures (their SVGs beside it,
# well-formed) and a Memory per rank section. By hand: the GPT of 24
# layers, h 2048, F 8192, vocab 50304 has 24 (4 h^2 + 2 h F) + 50304 h =
# 1 310 982 144 parameters; at dp 8 ZeRO-1 keeps 2 B of each parameter
# and gradient (2.622 GB) and 12 / 8 B of optimizer state (1.966 GB);
# ZeRO-3 2 / 8 B of parameters (0.328 GB). pp's 1F1B at 4 stages and 8
# micro-batches idles (4 - 1) / (8 + 4 - 1) = 0.2727 of its slots.
[ "$(ls "$r/docs/parallelism"/*.svg | wc -l)" = 14 ] ||
	fail "expected 14 pictures in docs/parallelism"
for f in "$r/docs/parallelism"/*.md; do
	case $f in */README.md) continue ;; esac
	grep -q '^## Pictures$' "$f" || fail "$f: no Pictures section"
	grep -q '^## Memory per rank$' "$f" || fail "$f: no Memory section"
	for svg in $(sed -n 's/^!\[.*\](\(.*\.svg\))$/\1/p' "$f"); do
		[ -s "$r/docs/parallelism/$svg" ] || fail "$f: $svg missing"
		if command -v xmllint >/dev/null; then
			xmllint --noout "$r/docs/parallelism/$svg" ||
				fail "$svg is not well-formed"
		fi
	done
done
grep -Eq '^zero1 +2\.622 +2\.622 +1\.966 ' "$r/docs/parallelism/dp.md" ||
	fail "dp.md: ZeRO-1 at dp 8 is not 2.622 / 2.622 / 1.966 GB"
grep -Eq '^zero3 +0\.328 +0\.328 +1\.966 ' "$r/docs/parallelism/dp.md" ||
	fail "dp.md: ZeRO-3 at dp 8 is not 0.328 / 0.328 / 1.966 GB"
grep -q 'slots = 0\.2727' "$r/docs/parallelism/pp.md" ||
	fail "pp.md: the 1F1B bubble is not 3/11"
# ---- algorithms step by step, in-place pictures (issue 21) -------------------
# one step picture per (collective, algorithm) of gpu/include/csgpu/sched.h's
# csg_algo_supports (ring 5, tree 3, direct 5, pairwise 2) and
# sched_classic.h's csg_cl_supports (rd 2, rhd 2, binomial 2): 21; one
# in-place picture per collective: 10
[ "$(ls "$r/docs/collectives/steps"/*.svg | wc -l)" = 21 ] ||
	fail "expected 21 step pictures in docs/collectives/steps"
[ "$(ls "$r/docs/collectives/inplace"/*.svg | wc -l)" = 10 ] ||
	fail "expected 10 in-place pictures in docs/collectives/inplace"
if command -v xmllint >/dev/null; then
	for f in "$r/docs/collectives/steps"/*.svg "$r/docs/collectives/inplace"/*.svg; do
		xmllint --noout "$f" 2>/dev/null || fail "$f is not well-formed XML"
	done
fi
# every page links its pictures, and every link names a file
for c in allreduce allgather reducescatter alltoall alltoallv broadcast \
	reduce gather scatter sendrecv; do
	grep -q "](steps/$c-[a-z]*\.svg)" "$r/docs/collectives/$c.md" ||
		fail "$c.md links no step picture"
	grep -q "](inplace/$c\.svg)" "$r/docs/collectives/$c.md" ||
		fail "$c.md links no in-place picture"
	for f in $(grep -o '](\(steps\|inplace\)/[a-z-]*\.svg)' "$r/docs/collectives/$c.md" |
		sed 's/^](//; s/)$//' | sort -u); do
		[ -f "$r/docs/collectives/$f" ] || fail "$c.md links $f, which is missing"
	done
done
# the ring at P = 4 by hand: 2(P-1) = 6 chunks of one element sent by each
# rank, 6 / 4 = 1.5 = 2(P-1)/P; the double binary tree drawn at P = 8
grep -q 'the busiest rank sends 6 chunks of one element: 6 / 4 = 1.5 of the vector' \
	"$r/docs/collectives/allreduce.md" || fail "allreduce.md: the ring's 2(P-1)/P at P = 4 is not 6 / 4 = 1.5"
grep -q '^`collspec explain allreduce --algo tree --steps --ranks 8 --svg steps/allreduce-tree.svg`' \
	"$r/docs/collectives/allreduce.md" || fail "allreduce.md: no tree at P = 8"
# the rooted collectives draw a root that is not 0
grep -q -- '--inplace --root 1 --svg inplace/scatter.svg' \
	"$r/docs/collectives/scatter.md" || fail "scatter.md: in place not at root 1"
rm "$r/docs/collectives/steps/allreduce-ring.svg"
run 1 "check with a step picture missing" --check "$collspec" "$r"
run 0 "rewriting" "$collspec" "$r"
# ---- end of algorithms step by step ------------------------------------------

# a number changed by hand: 136 bytes (spec/patterns.md 5.1's example)
grep -q '| bwd | `dp` | allreduce | avg | 16 | 136 | 136 | 136 | 136 | ' \
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

# a pattern section of the spec without its Model paragraph stops it
cp "$r/spec/patterns.md" "$tmp/patterns.md"
sed -i 's/^\*\*Model\.\*\* The MLP of §5.1 (\$N = 17\$/The MLP of §5.1 ($N = 17$/' \
	"$r/spec/patterns.md"
run 2 "a pattern without a Model paragraph" --check "$collspec" "$r"
grep -q 'no \*\*Model\.\*\* paragraph in the section of `fsdp`' "$tmp/out" ||
	fail "the missing Model paragraph is not named: $(head -3 "$tmp/out")"
cp "$tmp/patterns.md" "$r/spec/patterns.md"

run 2 "a collspec that is not a program" --check "$tmp/none" "$r"
printf '#!/bin/sh\necho broken >&2\nexit 3\n' >"$tmp/bad"
chmod +x "$tmp/bad"
run 2 "a collspec that fails" --check "$tmp/bad" "$r"
grep -q 'collspec list failed: broken' "$tmp/out" ||
	fail "a failing collspec is not named: $(head -3 "$tmp/out")"

[ $fails = 0 ] && echo "PASS: gen-pages.sh writes, checks and refuses as expected"
[ $fails = 0 ]
