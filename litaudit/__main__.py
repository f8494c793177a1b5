from litaudit.cli.main import main

main()
