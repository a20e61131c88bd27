/// An error in a box: a single reference where an existential would take five words.
final class ErrorBox: Sendable {
    let error: any Error

    init(_ error: any Error) {
        self.error = error
    }
}
