"""``python -m gui``: open the window."""

import sys

from gui.app import main

sys.exit(main(sys.argv[1:]))
