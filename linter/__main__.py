from linter.cli import main

main()
