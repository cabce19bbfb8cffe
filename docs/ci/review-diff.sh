#!/bin/sh
# The review step of the CI job in docs/ci.md: one Markdown comment naming, for every manifest
# that the change adds, removes or changes, the tests it makes start and stop running.
#   usage: sh review-diff.sh BASE > review.md     (BASE: the base branch, e.g. origin/main)
# Compared with the merge base of BASE and HEAD (what the pull request's diff shows). An added
# manifest is compared with nothing (every test it runs starts), a removed one is named as
# removed. Exit code 0; 2 when a manifest could not be reviewed (the others are still in the
# comment, and the error is on stderr).
set -u
base=$(git merge-base "${1:?usage: review-diff.sh BASE}" HEAD) || exit 2
base=$(git rev-parse --short "$base") || exit 2
cd "$(git rev-parse --show-toplevel)" || exit 2
changes=$(git -c core.quotePath=false diff --no-renames --name-status "$base" HEAD \
  -- '*manifest.py' ':!**/.torchcts-lsp/**') || exit 2
tab=$(printf '\t')
printf '%s\n' "$changes" | {
  failed=0
  while IFS="$tab" read -r change path; do
    case "$change" in
      "") ;;
      D) printf '### torchcts manifest review: `%s` removed\n\nThe manifest is deleted: the tests it ran no longer run from it.\n\n' "$path" ;;
      *) torchcts-lsp diff --against "$base" "$path" --format markdown || failed=2
         echo ;;
    esac
  done
  exit "$failed"
}
