"""Player names: NFKC-normalised, without control, format or separator characters.

Why: a name is shown to other players (the web client, leaderboards, challenges). A right-to-left override
(U+202E) or another bidi control reorders the text around it ("evil" shown as "live"), zero-width and other
format characters make two names look alike, and control characters break logs and terminals. NFKC folds
compatibility forms (fullwidth letters, ligatures) into the plain ones, so look-alikes of that kind compare equal.
"""

from __future__ import annotations

import unicodedata

MAX_LENGTH = 40

#: Unicode categories refused anywhere in a name: controls (Cc, with C0, DEL and C1), formats (Cf: the bidi
#: embeddings, overrides, isolates and marks, zero-width characters, soft hyphen, tags), surrogates, private use,
#: unassigned, and the line and paragraph separators.
REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def clean_name(raw: str) -> str:
    """`raw` normalised (NFKC, outer white space stripped); ValueError naming the first refused character."""
    name = unicodedata.normalize("NFKC", raw).strip()
    for ch in raw + name:
        category = unicodedata.category(ch)
        if category in REFUSED_CATEGORIES:
            raise ValueError(f"names cannot hold U+{ord(ch):04X} ({category}: control, format or separator "
                             "characters such as bidi overrides are refused)")
    if not name:
        raise ValueError("name must not be blank")
    if len(name) > MAX_LENGTH:
        raise ValueError(f"name is longer than {MAX_LENGTH} characters once normalised (NFKC)")
    return name
