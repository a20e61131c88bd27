import LifelineCLI

/// The `lifeline` executable: everything lives in ``LifelineCLI``.
@main
enum Main {
    static func main() async {
        await LifelineCommand.main(nil)
    }
}
