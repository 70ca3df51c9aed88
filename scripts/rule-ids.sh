#!/usr/bin/env bash
# Every rule id tested (issue 21): prints the rule ids of the specification that no test cites and
# exits 1 when any remains outside tests/rule-ids-exempt.txt. Run from anywhere; takes well under
# a second.
#
# The count, exactly:
# - Rule ids: every bold id (`**R5.3.2**`, `**R8.5 The Fatalist.**`: `**` then the id then `**` or
#   a space) of sections 1 to 10 of RULES.md (R-ids) and of its appendix A (A-ids); and, only when
#   the crate engine/exorcist exists, every bold X-id of sections X1 to X12 of RULES-exorcist.md.
#   Section 0 and X0 (conventions), section 11 and X13 (ambiguity resolutions, cited through the
#   rules they settle) and the other appendices are not counted. Each id counts once.
# - Test files: under engine/, api/ and tests/ (never target/), every `.rs` file inside a directory
#   named `tests` or whose name contains `tests`, every `.py`, `.sh` or `.mjs` file inside a `tests`
#   directory, and every other `.rs` file holding an inline `#[cfg(test)] mod name {`, of which only
#   the text from that attribute to the end of the file is read (test modules close their files).
# - Cited: the id appears in a test file (comment, doc comment, string or name), not preceded by a
#   letter, digit or underscore. A range `X-Y` (hyphen, en or em dash, spaces allowed) cites every
#   id of the specification from X to Y in document order that has as many parts as X and Y
#   (R8.5.1-R8.5.5: R8.5.1 to R8.5.5; R5.1-R5.8: R5.1 to R5.8, not R5.1.1); when an end is not an id
#   of the specification it cites the ids that differ from X only by a last part between those of
#   X and Y. A parent id (R8.5) does not cite its children (R8.5.1), nor a child its parent.
# - Exempt: an id of tests/rule-ids-exempt.txt (`ID reason`, one a line, `#` comments), for what no
#   test can check (a definition, a note, a physical component). An exempt id must exist in the
#   specification, have a reason and be cited by no test (otherwise it is not exempt: remove it).
#
# Environment: FLICKER_RULES_DIR, the directory of RULES.md (default ../shared beside the clone, as
# in CI). `scripts/rule-ids.sh --cited` lists each counted id with the number of files citing it.
set -euo pipefail
cd "$(dirname "$0")/.."
export LC_ALL=C

rules_dir=${FLICKER_RULES_DIR:-../shared}
exempt_file=tests/rule-ids-exempt.txt
rules=$rules_dir/RULES.md
exorcist=$rules_dir/RULES-exorcist.md
[ -f "$rules" ] || { echo "error: $rules is missing (set FLICKER_RULES_DIR to the directory of RULES.md)" >&2; exit 2; }
[ -f "$exempt_file" ] || { echo "error: $exempt_file is missing" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 1. The specification's ids, in document order.
spec_ids() { # file, id letter, section prefix of the headings ("" or "X"), first, last, with appendix A?
  awk -v letter="$2" -v pre="$3" -v lo="$4" -v hi="$5" -v appendix="$6" '
    /^## / {
      want = ""
      if (match($0, "^## " pre "[0-9]+\\.")) {
        n = substr($0, 4 + length(pre), RLENGTH - 4 - length(pre)) + 0
        if (n >= lo && n <= hi) want = letter
      } else if (appendix && $0 ~ /^## Appendix A[ .]/) want = "A"
      next
    }
    want != "" {
      line = $0
      while (match(line, "\\*\\*" want "[0-9]+(\\.[0-9]+)*(\\*\\*| )")) {
        id = substr(line, RSTART + 2, RLENGTH - 2)
        sub(/(\*\*| )$/, "", id)
        print id
        line = substr(line, RSTART + RLENGTH)
      }
    }' "$1"
}
{
  spec_ids "$rules" R "" 1 10 1 | awk '!seen[$0]++'
} >"$tmp/spec"
games="final-flicker"
if [ -d engine/exorcist ]; then
  [ -f "$exorcist" ] || { echo "error: engine/exorcist exists but $exorcist is missing" >&2; exit 2; }
  spec_ids "$exorcist" X X 1 12 0 | awk '!seen[$0]++' >>"$tmp/spec"
  games="$games, exorcist"
fi

# 2. The test files, and the text of theirs that counts.
find engine api tests -name target -prune -o -type f \( -name '*.rs' -o -name '*.py' -o -name '*.sh' -o -name '*.mjs' \) -print | sort >"$tmp/files"
: >"$tmp/text"
while IFS= read -r f; do
  case "/$f" in
    */tests/*.rs | */tests/*.py | */tests/*.sh | */tests/*.mjs | *tests*.rs) printf '\n#FILE %s\n' "$f" >>"$tmp/text"; cat "$f" >>"$tmp/text" ;;
    *.rs)
      awk -v f="$f" '
        on { print; next }
        /#\[cfg\(test\)\]/ { pending = 1; held = $0; next }
        pending && /^[ \t]*#\[/ { held = held "\n" $0; next }
        pending && /^[ \t]*(pub(\([a-z]+\))? )?mod [A-Za-z_0-9]+ *\{/ { on = 1; printf "\n#FILE %s\n%s\n%s\n", f, held, $0; next }
        { pending = 0 }' "$f" >>"$tmp/text"
      ;;
  esac
done <"$tmp/files"

# 3. The citations, ranges expanded against the specification.
awk -v specfile="$tmp/spec" '
  function parts(id) { return gsub(/\./, ".", id) + 1 }
  function cite(id) { if (!(id SUBSEP file in done)) { done[id SUBSEP file] = 1; print id } }
  function range(a, b,   i, ia, ib, pa, pb, k, lo, hi) {
    ia = pos[a]; ib = pos[b]
    if (ia && ib && ia <= ib) {
      for (i = ia; i <= ib; i++) if (parts(order[i]) == parts(a) || parts(a) != parts(b)) cite(order[i])
      return
    }
    pa = a; sub(/[0-9]+$/, "", pa); pb = b; sub(/[0-9]+$/, "", pb)
    if (pa == pb) {
      lo = substr(a, length(pa) + 1) + 0; hi = substr(b, length(pb) + 1) + 0
      for (k = lo; k <= hi; k++) cite(pa k)
    }
    cite(a); cite(b)
  }
  BEGIN { while ((getline l < specfile) > 0) { order[++n] = l; pos[l] = n } }
  /^#FILE / { file = $2; next }
  {
    line = " " $0
    while (match(line, /[^A-Za-z0-9_][RAX][0-9]+(\.[0-9]+)*( ?(-|–|—) ?[RAX][0-9]+(\.[0-9]+)*)?/)) {
      m = substr(line, RSTART + 1, RLENGTH - 1)
      line = substr(line, RSTART + RLENGTH)
      if (match(m, / ?(-|–|—) ?/)) {
        a = substr(m, 1, RSTART - 1); b = substr(m, RSTART + RLENGTH)
        if (substr(a, 1, 1) == substr(b, 1, 1)) { range(a, b); continue }
        cite(a); m = b
      }
      cite(m)
    }
  }' "$tmp/text" | sort | uniq -c | awk '{ print $2, $1 }' >"$tmp/cited"

# 4. The exempt list.
awk '
  /^[ \t]*(#|$)/ { next }
  {
    id = $1; reason = $0; sub(/^[ \t]*[^ \t]+[ \t]*/, "", reason)
    if (reason == "") { print "error: " FILENAME ":" NR ": " id " has no reason" > "/dev/stderr"; bad = 1 }
    print id
  }
  END { exit bad }' "$exempt_file" >"$tmp/exempt"

# 5. The count.
awk -v citedfile="$tmp/cited" -v exemptfile="$tmp/exempt" -v specfile="$tmp/spec" -v list="${1:-}" -v games="$games" -v exempt_name="$exempt_file" '
  BEGIN {
    while ((getline l < citedfile) > 0) { split(l, w, " "); cited[w[1]] = w[2] }
    while ((getline l < exemptfile) > 0) exempt[l] = 1
    while ((getline l < specfile) > 0) { order[++n] = l; inspec[l] = 1 }
    for (e in exempt) if (!(e in inspec)) { print "error: " exempt_name " lists " e ", which is not a counted rule id" > "/dev/stderr"; bad = 1 }
    for (i = 1; i <= n; i++) {
      id = order[i]
      if (id in cited) {
        nc++
        if (list == "--cited") printf "%-10s cited by %d file(s)\n", id, cited[id]
        if (id in exempt) { print "error: " id " is in " exempt_name " but cited by a test: remove it from the list" > "/dev/stderr"; bad = 1 }
      } else if (id in exempt) ne++
      else { nu++; un = un (nu % 10 == 1 ? "\n  " : " ") id }
    }
    if (nu) print "rule ids no test cites (" nu "):" un
    printf "rule ids (%s): %d counted, %d cited by tests, %d exempt (%s), %d uncited\n", games, n, nc, ne, exempt_name, nu
    exit (bad || nu) ? 1 : 0
  }'
