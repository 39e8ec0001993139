#!/usr/bin/env python3
"""Writes the update manifest (`latest.json`) that Oikos checks for new releases.

Each --asset names the updater targets it serves and the artifact file; the artifact's signature
is read from the `.sig` file beside it (what `tauri build` writes with updater artifacts on: the
base64 of a minisign signature). The signature's trusted comment must name --version (the app
requires a signed version), so a manifest never pairs a version with another release's artifact.

    update-manifest.py --version 1.2.0 --notes-file notes.md \
        --base-url https://git.example/oikos/oikos/releases/download/v1.2.0/ \
        --asset linux-x86_64,linux-x86_64-appimage=dist/Oikos_1.2.0_amd64.AppImage \
        --asset linux-x86_64-deb=dist/Oikos_1.2.0_amd64.deb \
        --asset darwin-aarch64,darwin-aarch64-app=dist/Oikos.app.tar.gz \
        --output latest.json

Targets are `{os}-{arch}` (`linux`/`darwin`, `x86_64`/`aarch64`), optionally followed by the
bundle type the app was installed from (`-appimage`, `-deb`, `-app`). Nothing is written unless
every asset checks out. Only the Python standard library is used.
"""

import argparse
import base64
import binascii
import datetime
import json
import os
import re
import sys
import urllib.parse

TARGET = re.compile(r"^(linux|darwin|windows)-(x86_64|aarch64|i686|armv7)(-(appimage|deb|rpm|app|msi|nsis))?$")
SEMVER = re.compile(r"^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$")


class Refused(Exception):
    pass


def signature_of(artifact, version):
    """The `.sig` text of the artifact, checked to be a minisign signature for `version`."""
    sig_path = artifact + ".sig"
    try:
        with open(sig_path, encoding="ascii") as f:
            sig = f.read().strip()
    except OSError as e:
        raise Refused(f"{artifact}: no signature ({e.strerror}: {sig_path})")
    try:
        text = base64.b64decode(sig, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        raise Refused(f"{sig_path}: not a base64 minisign signature")
    lines = text.splitlines()
    if len(lines) < 4 or not lines[0].startswith("untrusted comment:") or not lines[2].startswith("trusted comment:"):
        raise Refused(f"{sig_path}: not a minisign signature")
    fields = dict(
        field.split(":", 1) for field in lines[2][len("trusted comment:"):].strip().split("\t") if ":" in field
    )
    signed = fields.get("version")
    # The app requires the signed version (requireSignedVersion): an update signed without one
    # would be refused by every installed app, so it is refused here, before publishing.
    if signed is None:
        raise Refused(f"{sig_path}: signed without a version (sign with a tauri-cli that records it)")
    if signed.lstrip("v") != version:
        raise Refused(f"{sig_path}: signed for version {signed}, not {version}")
    return sig


def manifest(version, notes, pub_date, base_url, assets):
    if not SEMVER.match(version):
        raise Refused(f"version {version!r} is not semver (X.Y.Z)")
    if not base_url.endswith("/"):
        base_url += "/"
    platforms = {}
    for spec in assets:
        targets, sep, path = spec.partition("=")
        if not sep or not path:
            raise Refused(f"--asset {spec!r}: expected TARGET[,TARGET…]=FILE")
        if not os.path.isfile(path):
            raise Refused(f"{path}: no such artifact")
        entry = {
            "signature": signature_of(path, version),
            "url": base_url + urllib.parse.quote(os.path.basename(path)),
        }
        for target in targets.split(","):
            if not TARGET.match(target):
                raise Refused(f"{target!r} is not an updater target like linux-x86_64 or darwin-aarch64-app")
            if target in platforms:
                raise Refused(f"{target} is named by two assets")
            platforms[target] = entry
    if not platforms:
        raise Refused("no --asset given")
    return {"version": version, "notes": notes, "pub_date": pub_date, "platforms": platforms}


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--version", required=True, help="the release's version (X.Y.Z; a leading v is dropped)")
    p.add_argument("--notes-file", help="release notes shown in the app (plain text)")
    p.add_argument("--pub-date", help="RFC 3339 publication time (default: now, UTC)")
    p.add_argument("--base-url", required=True, help="where the artifacts are downloaded from")
    p.add_argument("--asset", action="append", default=[], help="TARGET[,TARGET…]=FILE (FILE.sig beside it)")
    p.add_argument("--output", required=True, help="the manifest file to write")
    args = p.parse_args(argv)

    notes = ""
    if args.notes_file:
        with open(args.notes_file, encoding="utf-8") as f:
            notes = f.read().strip()
    pub_date = args.pub_date or datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    try:
        data = manifest(args.version.lstrip("v"), notes, pub_date, args.base_url, args.asset)
    except Refused as e:
        print(f"update-manifest: {e}", file=sys.stderr)
        return 1
    tmp = args.output + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=2, ensure_ascii=False)
        f.write("\n")
    os.replace(tmp, args.output)
    print(f"update-manifest: {args.output}: {args.version} for {', '.join(sorted(data['platforms']))}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
