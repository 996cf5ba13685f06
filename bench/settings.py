"""The product's settings plus the benchmark's bare baseline route (bench/urls.py)."""

from crosstalk.settings import *  # noqa: F403

ROOT_URLCONF = "bench.urls"
