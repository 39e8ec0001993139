#!/usr/bin/env bash
# The Gitea API calls of the release workflow (.gitea/workflows/release.yml), in one place.
#
#   gitea-release.sh create TAG NOTES_FILE   the release for TAG (made if missing); prints its id
#   gitea-release.sh upload ID FILE…         attaches the files (replacing same-named ones)
#   gitea-release.sh download ID DIR         every attached file into DIR
#   gitea-release.sh notes ID                the release's text (its notes)
#   gitea-release.sh publish FILE            FILE at the fixed manifest URL (see manifest-url)
#   gitea-release.sh manifest-url            that URL
#
# Needs GITEA_TOKEN (a token allowed to write the repository and its packages), and the server
# and repository the workflow runs for (GITHUB_SERVER_URL, GITHUB_REPOSITORY, set by Gitea
# Actions). Uses curl and python3 only.
set -euo pipefail

: "${GITEA_TOKEN:?set GITEA_TOKEN}" "${GITHUB_SERVER_URL:?}" "${GITHUB_REPOSITORY:?}"
server=${GITHUB_SERVER_URL%/}
api="$server/api/v1/repos/$GITHUB_REPOSITORY"
owner=${GITHUB_REPOSITORY%%/*}
# The manifest's fixed home: a generic package whose one version, `latest`, is replaced on every
# release (Gitea has no "latest release" download link). The app's tauri.conf.json names it.
manifest_package=${MANIFEST_PACKAGE:-oikos-update}
manifest_url="$server/api/packages/$owner/generic/$manifest_package/latest/latest.json"

call() { curl --fail-with-body -sS -H "Authorization: token $GITEA_TOKEN" "$@"; }
json() { python3 -c "import json,sys; d=json.load(sys.stdin); $1"; }

case "${1:-}" in
create)
    tag=$2 notes=$3
    if release=$(call "$api/releases/tags/$tag" 2>/dev/null); then
        echo "$release" | json 'print(d["id"])'
    else
        body=$(python3 -c 'import json,sys; print(json.dumps({"tag_name": sys.argv[1], "name": "Oikos " + sys.argv[1],
            "body": open(sys.argv[2], encoding="utf-8").read(), "draft": False, "prerelease": "-" in sys.argv[1]}))' "$tag" "$notes")
        call -X POST -H 'Content-Type: application/json' -d "$body" "$api/releases" | json 'print(d["id"])'
    fi
    ;;
upload)
    id=$2
    shift 2
    for file in "$@"; do
        name=$(basename "$file")
        # A re-run replaces what an earlier run attached.
        for old in $(call "$api/releases/$id/assets" | json "print(*[a['id'] for a in d if a['name'] == '$name'])"); do
            call -X DELETE "$api/releases/$id/assets/$old" >/dev/null
        done
        call -X POST -F "attachment=@$file" "$api/releases/$id/assets?name=$name" >/dev/null
        echo "attached $name"
    done
    ;;
download)
    id=$2 dir=$3
    mkdir -p "$dir"
    call "$api/releases/$id/assets" | json 'print("\n".join(a["name"] + "\t" + a["browser_download_url"] for a in d))' |
        while IFS=$'\t' read -r name url; do
            call -L -o "$dir/$name" "$url"
            echo "downloaded $name"
        done
    ;;
notes)
    call "$api/releases/$2" | json 'print(d.get("body") or "")'
    ;;
publish)
    # Generic package files cannot be overwritten: the old manifest is removed first.
    call -X DELETE "$manifest_url" >/dev/null 2>&1 || true
    call -X PUT --upload-file "$2" "$manifest_url" >/dev/null
    echo "published $manifest_url"
    ;;
manifest-url)
    echo "$manifest_url"
    ;;
*)
    sed -n '2,12p' "$0" >&2
    exit 2
    ;;
esac
