#!/usr/bin/env bash
# test_doc_tables.sh - scripts/doc-tables.sh on a scratch tree: it fills an
# empty block, --check then passes; an edited row is stale (exit 1, the
# page named); a table with no block in any page, an unknown table, a
# block without its end and a nested block are errors.
#   usage: test_doc_tables.sh SCRIPT COLLSPEC
set -euo pipefail

script=$1
collspec=$2
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# expect RC CMD...: run CMD, require exit status RC; its output in $out
expect() {
	local want=$1 rc=0
	shift
	out=$("$@" 2>&1) || rc=$?
	[ "$rc" = "$want" ] || fail "exit $rc, expected $want: $*"$'\n'"$out"
}

mkdir -p "$root/docs/sub"
printf 'intro\n' >"$root/README.md"
cat >"$root/docs/sub/page.md" <<'EOF'
# A page

<!-- collspec:table checks -->
<!-- /collspec:table -->

text between

<!-- collspec:table expect-checks -->
<!-- /collspec:table -->
<!-- collspec:table backends -->
<!-- /collspec:table -->
<!-- collspec:table suites -->
<!-- /collspec:table -->

<!-- collspec:table commands -->
old text, replaced
<!-- /collspec:table -->
end
EOF

expect 0 "$script" "$collspec" "$root"
grep -qx '| `value` | FAIL | 4 | each rank | .* |' "$root/docs/sub/page.md" ||
	fail "no value row after the rewrite"
grep -qx 'old text, replaced' "$root/docs/sub/page.md" &&
	fail "the old block text survived"
grep -qx 'text between' "$root/docs/sub/page.md" || fail "prose lost"
grep -q '^| `full` | ' "$root/docs/sub/page.md" || fail "no full suite row"
[ "$(tail -n 1 "$root/docs/sub/page.md")" = end ] || fail "tail lost"
expect 0 "$script" --check "$collspec" "$root"

# a stale row: --check names the page and leaves it as it was
sed -i 's/^| `value` | FAIL |/| `value` | WARN |/' "$root/docs/sub/page.md"
cp "$root/docs/sub/page.md" "$root/before"
expect 1 "$script" --check "$collspec" "$root"
[[ $out == *"docs/sub/page.md: generated tables are stale"* ]] ||
	fail "stale page not named: $out"
cmp -s "$root/before" "$root/docs/sub/page.md" || fail "--check wrote"
expect 0 "$script" "$collspec" "$root"
expect 0 "$script" --check "$collspec" "$root"

# every table collspec offers must have a block somewhere
sed -i '/collspec:table commands/,/\/collspec:table/d' "$root/docs/sub/page.md"
expect 1 "$script" --check "$collspec" "$root"
[[ $out == *"table 'commands' has no block"* ]] || fail "missing table: $out"

# broken blocks
printf '<!-- collspec:table nosuch -->\n<!-- /collspec:table -->\n' \
	>"$root/docs/bad.md"
expect 2 "$script" --check "$collspec" "$root"
printf '<!-- collspec:table checks -->\nno end\n' >"$root/docs/bad.md"
expect 2 "$script" "$collspec" "$root"
[[ $out == *"without its end marker"* ]] || fail "unterminated: $out"
printf '<!-- collspec:table checks -->\n<!-- collspec:table checks -->\n' \
	>"$root/docs/bad.md"
expect 2 "$script" "$collspec" "$root"
[[ $out == *"inside a block"* ]] || fail "nested: $out"
echo "ok"
