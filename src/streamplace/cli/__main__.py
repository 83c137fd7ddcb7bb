"""``python -m streamplace.cli``, as ``python -m streamplace``."""

from streamplace.cli import main

if __name__ == "__main__":
    main()
