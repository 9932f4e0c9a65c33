"""The docs' and README's screenshots (docs/decisions/webclient-trial.md: a phone and a non-English page in the README):
every picture the script makes (services/dev/screenshots.py SHOTS, and the lobby) is committed under docs/screenshots,
is a PNG under 200 KB, and is shown by the web client's docs page; the README shows a phone and a non-English page."""

from __future__ import annotations

import re
from pathlib import Path

from services.dev.screenshots import MAX_BYTES, SHOTS

ROOT = Path(__file__).resolve().parents[1]
SHOTS_DIR = ROOT / "docs" / "screenshots"
PNG = b"\x89PNG\r\n\x1a\n"



def test_every_screenshot_is_committed_small_and_shown_in_the_docs():
    names = {s.name for s in SHOTS} | {"lobby"}
    files = {p.stem for p in SHOTS_DIR.glob("*.png")}
    assert files == names, "docs/screenshots holds exactly what services/dev/screenshots.py makes"
    page = (ROOT / "docs" / "platform" / "webclient.md").read_text()
    for name in sorted(names):
        data = (SHOTS_DIR / f"{name}.png").read_bytes()
        assert data.startswith(PNG) and len(data) < MAX_BYTES, (name, len(data))
        assert f"../screenshots/{name}.png" in page, f"{name}.png is not shown on docs/platform/webclient.md"


def test_the_readme_shows_a_phone_and_a_non_english_page():
    shown = re.findall(r'src="docs/screenshots/([\w-]+)\.png"', (ROOT / "README.md").read_text())
    by_name = {s.name: s for s in SHOTS}
    assert any(by_name[n].size == "phone" for n in shown), shown
    assert any(by_name[n].lang != "en" for n in shown), shown
