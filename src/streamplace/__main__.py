"""``python -m streamplace``: the command line, as the ``streamplace`` script runs it."""

from streamplace.cli import main

if __name__ == "__main__":
    main()
