"""The wind pump of the papers (docs/theory.md section 5), a preset of the general planar
mechanism: its names, kept here for ``from kanefem.windpump import ...``; the code is in
:mod:`kanefem.mechanism.windpump`."""

from .mechanism.windpump import *  # noqa: F401,F403
from .mechanism.windpump import GROUPS, MAX_STEPS, VIEWS, __all__  # noqa: F401
