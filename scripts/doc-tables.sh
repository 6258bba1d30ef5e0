#!/usr/bin/env bash
# doc-tables.sh - the docs' generated tables: every block of README.md and
# docs/**/*.md between
#     <!-- collspec:table NAME -->
#     <!-- /collspec:table -->
# is the output of `COLLSPEC doc-table NAME` (the check registry, the
# subcommand table, ...), between two blank lines.
#
# usage: scripts/doc-tables.sh [--check] COLLSPEC [ROOT]
#   rewrites the blocks in place under ROOT (default: this repository);
#   --check writes nothing: it regenerates into a temporary copy, prints the
#   difference and exits 1 when a page is stale, or when a table that
#   `COLLSPEC doc-table --help` lists has no block in any page.
# Exit status: 0 up to date (or rewritten), 1 stale, 2 usage or a broken
# block (unknown table, unterminated or nested block).

set -euo pipefail

check=0
if [ "${1:-}" = "--check" ]; then
	check=1
	shift
fi
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: $0 [--check] COLLSPEC [ROOT]" >&2
	exit 2
fi
collspec=$1
root=${2:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The pages that hold at least one block, relative to root.
pages() {
	(cd "$root" && { [ -f README.md ] && echo README.md
		[ -d docs ] && find docs -name '*.md' | LC_ALL=C sort; } |
		while read -r f; do
			if grep -q '^<!-- collspec:table ' "$f"; then echo "$f"; fi
		done)
}

# Page $1 with its blocks regenerated, to stdout; the tables are made
# first (into $tmp/NAME.md) so that a failing collspec stops the script.
regenerate() {
	local page=$1 name
	for name in $(sed -n 's/^<!-- collspec:table \([a-z-]*\) -->$/\1/p' "$page"); do
		if [ ! -f "$tmp/t.$name" ] &&
			! "$collspec" doc-table "$name" >"$tmp/t.$name"; then
			echo "$0: $page: no table '$name'" >&2
			exit 2
		fi
	done
	awk -v dir="$tmp" -v page="$page" '
	function die(msg) { print page ":" NR ": " msg > "/dev/stderr"; bad = 1; exit 2 }
	/^<!-- collspec:table / {
		if (open) die("a block inside a block")
		if ($0 !~ /^<!-- collspec:table [a-z-]+ -->$/) die("malformed marker")
		name = $3; open = 1; print; print ""
		file = dir "/t." name
		while ((getline line < file) > 0) print line
		close(file); print ""
		next
	}
	/^<!-- \/collspec:table -->$/ {
		if (!open) die("an end marker without a block")
		open = 0; print; next
	}
	!open { print }
	END { if (!bad && open) die("a block without its end marker") }
	' "$page"
}

stale=0
for page in $(pages); do
	regenerate "$root/$page" >"$tmp/new.md"
	if cmp -s "$tmp/new.md" "$root/$page"; then
		continue
	fi
	if [ $check = 1 ]; then
		echo "$page: generated tables are stale (run scripts/doc-tables.sh" \
			"COLLSPEC to update them):"
		diff -u "$root/$page" "$tmp/new.md" | sed 's/^/  /' || true
		stale=1
	else
		cp "$tmp/new.md" "$root/$page"
		echo "updated $page"
	fi
done

if [ $check = 1 ]; then
	# every table collspec offers is in some page
	tables=$("$collspec" doc-table --help | sed -n 's/^tables://p')
	for name in $tables; do
		if ! (cd "$root" && grep -rqx -- "<!-- collspec:table $name -->" \
			README.md docs); then
			echo "table '$name' has no block in README.md or docs/"
			stale=1
		fi
	done
fi
exit $stale
