#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mail.sh [TOPIC]: the series as mail for git send-email, numbered,
# threaded (shallow: every patch answers the cover letter) and versioned,
# in $WORK/mail/v<N>/ ($WORK/mail/v<N>-<TOPIC>/ for one topic), the path
# printed on the last line. Needs the base and series/, never a build.
#  - N: series/version, one number (1 for the first posting, which git
#    format-patch then writes as "[PATCH k/n]");
#  - the cover letter: series/cover-letter (series/cover-letter-<TOPIC>
#    for a topic), its first line the subject without "[PATCH ...]", a
#    blank line, then the body. They take the place of git's
#    *** SUBJECT HERE *** and *** BLURB HERE ***; git's shortlog,
#    diffstat and base-commit: line stay;
#  - recipients: the patched tree's scripts/get_maintainer.pl on each
#    patch, its maintainers in To: and its reviewers and lists in Cc: (a
#    patch with no maintainer goes To: its lists); the cover letter goes
#    to all of them.
# The whole series is base + series/ (series_commit); a topic ("# topic:"
# lines in series/series) is its patches alone on the base.
. "$(dirname "$0")/lib.sh"

topic=${1:-}
# The mail is From: you (git format-patch needs a committer identity for
# From: and Message-Id:); no fallback identity for mail that gets sent.
git -C "$TREE" var GIT_COMMITTER_IDENT >/dev/null 2>&1 ||
	die "no git identity: set user.name and user.email (git config --global), the mail is From: you"
base=$(git -C "$TREE" rev-parse -q --verify "$(base_tag)^{commit}") ||
	die "no base commit $(base_tag) in $TREE: run 'make base'"

[ -f "$REPO/series/version" ] ||
	die "series/version is missing: write the version of this posting in it (1, 2, ...)"
version=$(tr -d '[:space:]' < "$REPO/series/version")
[[ $version =~ ^[1-9][0-9]*$ ]] ||
	die "series/version holds '$version', not a version number (1, 2, ...)"

if [ -n "$topic" ] && ! grep -qxF -- "$topic" < <(series_topics); then
	die "series/series has no topic '$topic' (its topics: $(series_topics | paste -sd ' '))"
fi

# The cover letter: ASCII, subject, blank line, body, no placeholder.
cover=series/cover-letter${topic:+-$topic}
[ -f "$REPO/$cover" ] ||
	die "$cover is missing: write it (first line the subject, a blank line, the body)"
bad=$(LC_ALL=C grep -n '[^[:print:][:space:]]' "$REPO/$cover" | cut -d: -f1 | paste -sd ' ') || true
[ -z "$bad" ] || die "$cover is not plain ASCII, on line(s) $bad"
subject=$(sed -n 1p "$REPO/$cover")
if [ -z "$subject" ] || [ "${subject:0:1}" = "[" ]; then
	die "$cover: the first line must be the subject, without a [PATCH] prefix"
fi
[ -z "$(sed -n 2p "$REPO/$cover")" ] || die "$cover: the second line must be blank"
[ -n "$(sed -n '3,$p' "$REPO/$cover" | tr -d '[:space:]')" ] ||
	die "$cover has no body after its subject"
placeholder=$(grep -nE '\*\*\*.*\*\*\*|\<(TODO|TBD|FIXME|XXX)\>' "$REPO/$cover") || true
[ -z "$placeholder" ] ||
	die "$cover still has placeholder text: $(printf '%s\n' "$placeholder" | head -3 | sed 's/^/line /' | paste -sd ';')"
long=$(awk 'NR > 2 && length > 72 { print NR }' "$REPO/$cover" | paste -sd ' ')
[ -z "$long" ] || info "warning: $cover has lines over 72 columns: $long"

# The commits to mail, and the tree whose MAINTAINERS says who gets them.
applied=$(series_commit) || die "series/ does not apply to $(base_tag) (above): no mail written"
if [ -z "$topic" ]; then
	mapfile -t patches < <(series_patches)
	tip=$applied
else
	mapfile -t patches < <(series_topic "$topic")
	tip=$(commit_patches "$base" "${patches[@]/#/$REPO/series/}") ||
		die "topic $topic does not apply to $(base_tag) on its own (above): no mail written"
fi
n=${#patches[@]}
[ "$n" -gt 0 ] || die "series/ is empty: nothing to mail"
[ "$(git -C "$TREE" rev-list --count "$base..$tip")" -eq "$n" ] ||
	die "$base..$tip is not the $n patches of series/${topic:+ topic $topic}"

say "mail v$version${topic:+ of topic $topic}: $n patches on $(base_tag)"
if [ -z "$topic" ]; then
	for t in $(series_topics); do
		mapfile -t tp < <(series_topic "$t")
		if commit_patches "$base" "${tp[@]/#/$REPO/series/}" >/dev/null 2>&1; then
			info "topic $t (${#tp[@]} patches) applies to the base on its own"
		else
			info "warning: topic $t (${#tp[@]} patches) does not apply to the base on its own"
		fi
	done
fi

mkdir -p "$WORK/mail"
tmp=$(mktemp -d "$WORK/mail/.new.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Recipients, one get_maintainer.pl run per patch and role, in the
# worktree where series_commit applied series/ (held still meanwhile).
(
	exec 8>"$WORK/.apply-lock"
	flock 8
	[ "$(git -C "$WORK/apply" rev-parse HEAD)" = "$applied" ] ||
		die "$WORK/apply moved away from base + series/ meanwhile: run 'make mail' again"
	cd "$WORK/apply"
	for ((k = 1; k <= n; k++)); do
		f=$REPO/series/${patches[k - 1]}
		for role in m l; do
			if [ $role = m ]; then sel=(--m --no-r --no-l); else sel=(--no-m --r --l); fi
			./scripts/get_maintainer.pl --no-git --no-git-fallback --no-rolestats \
				"${sel[@]}" "$f" > "$tmp/$k.$role" ||
				die "scripts/get_maintainer.pl failed on ${patches[k - 1]}"
		done
	done
) || exit 1
# uniq_addr FILE...: the lines of FILE..., each address once (first kept).
uniq_addr() {
	awk '{ a = tolower($0); sub(/.*</, "", a); sub(/>.*/, "", a) } !seen[a]++' "$@"
}
# recipients K: $K.m (maintainers) and $K.l (reviewers, lists) as $K.to
# and $K.cc, each address once; with no maintainer, the lists are To:.
recipients() {
	uniq_addr "$tmp/$1.m" > "$tmp/$1.to"
	uniq_addr "$tmp/$1.to" "$tmp/$1.l" | tail -n +"$(($(wc -l < "$tmp/$1.to") + 1))" > "$tmp/$1.cc"
	if [ ! -s "$tmp/$1.to" ]; then
		mv "$tmp/$1.cc" "$tmp/$1.to"
		: > "$tmp/$1.cc"
	fi
}
mains=() lists=()
for ((k = 1; k <= n; k++)); do
	recipients "$k"
	mains+=("$tmp/$k.m") lists+=("$tmp/$k.l")
done
uniq_addr "${mains[@]}" > "$tmp/0.m"
uniq_addr "${lists[@]}" > "$tmp/0.l"
recipients 0

args=(-q --cover-letter --numbered --thread=shallow --base="$base" -o "$tmp/out")
# git writes "v1" for -v1; a first posting has no version in its subject.
[ "$version" -eq 1 ] || args+=(-v "$version")
while read -r a; do args+=(--to="$a"); done < "$tmp/0.to"
while read -r a; do args+=(--cc="$a"); done < "$tmp/0.cc"
git -C "$TREE" format-patch "${args[@]}" "$base..$tip" ||
	die "git format-patch $base..$tip failed"
mapfile -t files < <(cd "$tmp/out" && ls -1 -- *.patch)
[ ${#files[@]} -eq $((n + 1)) ] ||
	die "git format-patch wrote ${#files[@]} files for $n patches and a cover letter"

# The cover letter's subject (folded at 78 columns as git folds) and body.
sed -n '3,$p' "$REPO/$cover" > "$tmp/body"
SUBJECT=$subject BODY=$tmp/body awk '
/^Subject: / && !s {
	i = index($0, "*** SUBJECT HERE ***")
	if (i) {
		line = substr($0, 1, i - 1) ENVIRON["SUBJECT"]
		while (length(line) > 78 && (j = match(substr(line, 1, 78), / [^ ]*$/)) > 1) {
			print substr(line, 1, j - 1)
			line = substr(line, j)
		}
		print line
		s = 1
		next
	}
}
$0 == "*** BLURB HERE ***" && !b {
	while ((getline l < ENVIRON["BODY"]) > 0) print l
	b = 1
	next
}
{ print }
END { exit !(s && b) }' "$tmp/out/${files[0]}" > "$tmp/cover" ||
	die "no *** SUBJECT HERE *** or *** BLURB HERE *** in git's ${files[0]}"
mv "$tmp/cover" "$tmp/out/${files[0]}"
grep -q "^base-commit: $base\$" "$tmp/out/${files[0]}" ||
	die "${files[0]} has no base-commit: $base line"

# Each patch goes to its own recipients: its To: and Cc: replace the union.
vk=PATCH
[ "$version" -eq 1 ] || vk="PATCH v$version"
for ((k = 1; k <= n; k++)); do
	f=$tmp/out/${files[k]}
	kk=$(printf '%0*d' "${#n}" "$k")
	grep -q "^Subject: \[$vk $kk/$n\] " "$f" || die "${files[k]} is not numbered [$vk $kk/$n]"
	TO=$(cat "$tmp/$k.to") CC=$(cat "$tmp/$k.cc") awk '
	function hdr(name, list,   m, a, i, h) {
		m = split(list, a, "\n")
		for (i = 1; i <= m; i++) if (a[i] != "") h = h (h == "" ? name ": " : ",\n    ") a[i]
		if (h != "") print h
	}
	BEGIN { head = 1 }
	head && /^(To|Cc):/ { skip = 1; next }
	head && skip && /^[ \t]/ { next }
	{ skip = 0 }
	head && $0 == "" { hdr("To", ENVIRON["TO"]); hdr("Cc", ENVIRON["CC"]); head = 0 }
	{ print }' "$f" > "$f.new" || die "cannot set the recipients of ${files[k]}"
	mv "$f.new" "$f"
done

# What was written applies to the base and gives the commits mailed.
check=$(cd "$tmp/out" && commit_patches "$base" "${files[@]:1}") ||
	die "the mail written does not apply to $(base_tag) (above)"
[ "$(git -C "$TREE" rev-parse "$check^{tree}")" = "$(git -C "$TREE" rev-parse "$tip^{tree}")" ] ||
	die "the mail written applies to $(base_tag) but gives another tree than $tip"

out=$WORK/mail/v$version${topic:+-$topic}
rm -rf "$out"
mv "$tmp/out" "$out"
for ((k = 0; k <= n; k++)); do
	info "${files[k]}  (To: $(wc -l < "$tmp/$k.to"), Cc: $(wc -l < "$tmp/$k.cc"))"
done
for r in to cc; do
	info "cover letter ${r^}: $(awk '{ printf "%s%s", (NR > 1 ? ", " : ""), $0 }' "$tmp/0.$r")"
done
info "check, then send: git send-email --dry-run $out/*.patch"
echo "$out"
