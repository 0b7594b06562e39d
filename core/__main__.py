import sys

from core.entry import main

sys.exit(main())
