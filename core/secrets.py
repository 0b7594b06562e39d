"""Which config values are secrets, and what a display shows for them.

Values of ``env`` whose names look secret (``WANDB_API_KEY``, ``HF_TOKEN``,
``AWS_SECRET_ACCESS_KEY``, ``DB_PASSWORD`` ...) are masked wherever a person sees them:
``--dry-run``, the window's History. A password in a URL (``https://me:pw@host``) is masked in
any variable. The run folder's ``config.json`` keeps the real values (it is what ran), and
``export --commands`` writes them too: its commands must run.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

MASK = "****"
#: Parts of a variable name that say it holds a secret (case-insensitive, anywhere in the name:
#: API_KEY, APIKEY, SLACKTOKEN ...). A wrong guess only hides a value from the display.
SECRET_PARTS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL",
                "AUTH", "PRIVATE", "COOKIE")
_SECRET_NAME = re.compile("|".join(SECRET_PARTS), re.IGNORECASE)
#: Common names the parts above match that hold no secret (Hugging Face's switch).
_NOT_SECRET = frozenset(["TOKENIZERS_PARALLELISM"])
_URL_PASSWORD = re.compile(r"(://[^/?#@\s:]*):[^/?#@\s]*@")


def is_secret_name(name: str) -> bool:
    """Whether the variable ``name`` looks like it holds a secret."""
    return name.upper() not in _NOT_SECRET and _SECRET_NAME.search(name) is not None


def mask(value: str) -> str:
    """A secret as displays show it: nothing of it (an empty one stays visibly empty)."""
    return MASK if value else ""


def shown_value(name: str, value: str) -> str:
    """What a display shows for the variable ``name=value``."""
    if is_secret_name(name):
        return mask(value)
    return _URL_PASSWORD.sub(rf"\1:{MASK}@", value) if "://" in value else value


def masked_env(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` as displays show it."""
    return {name: shown_value(name, value) for name, value in env.items()}
