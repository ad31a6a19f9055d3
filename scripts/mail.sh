#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mail.sh [TOPIC]: the series as mail, made by b4 (Debian's b4 0.12):
# base + series/ (or TOPIC's patches alone on the base) becomes a b4 prep
# branch pidmap-post in the worktree $WORK/post, with series/cover-letter (or
# series/cover-letter-TOPIC) as its cover letter, series/version as its
# revision, "RFC" in its prefixes with RFC=1 and the recipients that the
# patched tree's scripts/get_maintainer.pl names (b4 prep --auto-to-cc);
# b4 send -o writes the messages into $WORK/mail/v<N>/ (v<N>-<TOPIC>/),
# whose path is the last line printed. Nothing is sent.
# The posting is the sender's: git's user.name and user.email, which it
# needs. An identity in the patches at an address no one reads (a domain
# reserved for examples: .example, .invalid, .test, .localhost,
# example.com/net/org) is replaced by the sender's in From:, in
# Signed-off-by: and in MAINTAINERS' M: lines; every patch ends with the
# sender's Signed-off-by.
. "$(dirname "$0")/lib.sh"

topic=${1:-}
post=$WORK/post
command -v b4 >/dev/null || die "b4 is missing: run 'make deps'"
name=$(git -C "$TREE" config user.name) && email=$(git -C "$TREE" config user.email) ||
	die "no git identity: set user.name and user.email (git config --global); the mail is From: you"
# nobody ADDRESS: is ADDRESS at a domain no mail reaches (RFC 2606, 6761)?
nobody() {
	local d=${1##*@}
	d=${d,,}
	[[ $d =~ (^|\.)(example|invalid|test|localhost)$ || $d =~ (^|\.)example\.(com|net|org)$ ]]
}
nobody "$email" && die "your git identity <$email> is at a domain no mail reaches: set user.email to your address"
sender="$name <$email>"
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
placeholder=$(grep -nE '\*\*\*.*\*\*\*|\<(TODO|TBD|FIXME|XXX|EDITME)\>' "$REPO/$cover") || true
[ -z "$placeholder" ] ||
	die "$cover still has placeholder text: $(printf '%s\n' "$placeholder" | head -3 | sed 's/^/line /' | paste -sd ';')"
long=$(awk 'NR > 2 && length > 72 { print NR }' "$REPO/$cover" | paste -sd ' ')
[ -z "$long" ] || info "warning: $cover has lines over 72 columns: $long"

# The commits to mail.
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
say "mail v$version${topic:+ of topic $topic}${RFC:+ (RFC)}: $n patches on $(base_tag), from $sender"
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

# The prep branch: the commits made again with the sender in place of an
# identity no one reads (author, sign-off, MAINTAINERS), each signed off
# by the sender, committed by the sender.
sign() {
	local l a
	while IFS= read -r l; do
		case $l in "Signed-off-by: "*"<"*">") a=${l##*<}; nobody "${a%>}" && continue ;; esac
		printf '%s\n' "$l"
	done | git interpret-trailers --if-exists addIfDifferent --trailer "Signed-off-by: $sender"
}
maintainers() {
	local l a
	while IFS= read -r l; do
		case $l in "M:"*"<"*">") a=${l##*<}; nobody "${a%>}" && l="M:	$sender" ;; esac
		printf '%s\n' "$l"
	done
}
idx=$(mktemp) && rm -f "$idx"
trap 'rm -f "$idx"' EXIT
parent=$base
for c in $(git -C "$TREE" rev-list --reverse "$base..$tip"); do
	GIT_INDEX_FILE=$idx git -C "$TREE" read-tree "$c"
	if m=$(git -C "$TREE" ls-tree "$c" MAINTAINERS | awk '{ print $3 }') && [ -n "$m" ]; then
		nm=$(git -C "$TREE" cat-file blob "$m" | maintainers | git -C "$TREE" hash-object -w --stdin)
		[ "$nm" = "$m" ] || GIT_INDEX_FILE=$idx git -C "$TREE" update-index --cacheinfo "100644,$nm,MAINTAINERS"
	fi
	tree=$(GIT_INDEX_FILE=$idx git -C "$TREE" write-tree)
	IFS=$'\t' read -r an ae ad < <(git -C "$TREE" log -1 --format=$'%an\t%ae\t%aD' "$c")
	if nobody "$ae"; then an=$name ae=$email; fi
	parent=$(git -C "$TREE" log -1 --format=%B "$c" | sign |
		GIT_AUTHOR_NAME=$an GIT_AUTHOR_EMAIL=$ae GIT_AUTHOR_DATE=$ad \
		GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=$email \
		git -C "$TREE" commit-tree "$tree" -p "$parent") || die "cannot commit $c again as the sender's"
done
left=$(git -C "$TREE" log --format='%an <%ae>%n%cn <%ce>%n%b' "$base..$parent" | grep -oE '<[^>]*>' | sort -u |
	while read -r a; do a=${a#<}; ! nobody "${a%>}" || echo "$a"; done)
left+=$(git -C "$TREE" diff "$base" "$parent" -- MAINTAINERS | { grep -E '^\+M:' || true; } | grep -oE '<[^>]*>' |
	while read -r a; do a=${a#<}; ! nobody "${a%>}" || echo " $a"; done)
[ -z "$left" ] || die "addresses no one reads are left in the commits: $left"
lock "$post"
worktree_ready "$post" "$parent"
# Not "pidmap": that is the editing tree's branch, which must not move.
branch=pidmap-post${topic:+-$topic}
git -C "$post" checkout -q -f -B "$branch" "$parent" || die "cannot check out the posting in $post"
git -C "$post" clean -q -fdx
: > "$WORK/post.log"

# b4: enroll, cover letter, revision, prefixes, recipients, messages.
b4c() { (cd "$post" && b4 "$@") >> "$WORK/post.log" 2>&1 || die "b4 $* failed (log: $WORK/post.log)"; }
b4c prep -e "$base"
printf '%s\n' "$subject" "" > "$WORK/post.cover"
sed -n '3,$p' "$REPO/$cover" >> "$WORK/post.cover"
# b4 takes core.editor before $EDITOR: the "editor" copies the cover in.
(
	k=${GIT_CONFIG_COUNT:-0}
	export GIT_CONFIG_COUNT=$((k + 1)) "GIT_CONFIG_KEY_$k=core.editor" \
		"GIT_CONFIG_VALUE_$k=cp $(printf '%q' "$WORK/post.cover")"
	b4c prep --edit-cover
) || exit 1
[ "$version" -eq 1 ] || b4c prep --force-revision "$version"
[ -z "${RFC:-}" ] || b4c prep --set-prefixes RFC
b4c prep --auto-to-cc
out=$WORK/mail/v$version${topic:+-$topic}
rm -rf "$out"
# -o writes and sends nothing; an SMTP server in the configuration keeps
# b4 from its web endpoint, which would want the messages signed.
k=${GIT_CONFIG_COUNT:-0}
(
	export GIT_CONFIG_COUNT=$((k + 1)) "GIT_CONFIG_KEY_$k=sendemail.smtpserver" "GIT_CONFIG_VALUE_$k=localhost"
	b4c send --no-sign -o "$out"
) || exit 1
# b4 0.12 writes "[PATCH RFC vN ...]"; the lists' usage is "[RFC PATCH vN ...]".
[ -z "${RFC:-}" ] || sed -i 's/^Subject: \[PATCH RFC /Subject: [RFC PATCH /' "$out"/*.eml
mapfile -t files < <(cd "$out" && ls -1 -- *.eml)
[ ${#files[@]} -eq $((n + 1)) ] ||
	die "b4 wrote ${#files[@]} messages for $n patches and a cover letter (log: $WORK/post.log)"
# The same rule as for the commits (nobody), on every address written.
left=$(grep -ohE '[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]*[A-Za-z0-9]' "$out"/*.eml | sort -u |
	while read -r a; do ! nobody "$a" || echo "$a"; done)
[ -z "$left" ] || die "the messages in $out still name an address no one reads: $left"
for f in "${files[@]}"; do
	info "$f: $(sed -n 's/^Subject: //p' "$out/$f" | head -1)"
done
info "To/Cc of the cover letter: $(sed -n '/^To:/,/^[^ ]/p;/^Cc:/,/^[^ ]/p' "$out/${files[0]}" | grep -oE '<[^>]*>|[^ ,<>]+@[^ ,<>]+' | sort -u | wc -l) addresses"
info "check, then send: git send-email --dry-run $out/*.eml (or 'b4 send' in $post, which tags the posting for 'b4 prep --compare-to')"
echo "$out"
