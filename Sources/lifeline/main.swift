import LifelineCLI

await LifelineCommand.main()
