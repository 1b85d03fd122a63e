from kgverify.cli import main

main()
