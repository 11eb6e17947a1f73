from linter.entry import main

main()
