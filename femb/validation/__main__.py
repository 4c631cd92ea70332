"""``python -m femb.validation``: run the validation benchmarks (see femb.validation.cli)."""
import sys

from femb.validation.cli import main

if __name__ == "__main__":
    sys.exit(main())
