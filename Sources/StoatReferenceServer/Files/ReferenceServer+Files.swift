#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

extension ReferenceServer {
    // MARK: The file server

    /// A file the file server stored, whether or not a message claimed it.
    ///
    /// - Parameter id: The file's id, as the upload answered it.
    public func file(id: String) async -> StoatFile? {
        await state.files[id]
    }

    /// A stored file's bytes, as uploaded.
    ///
    /// - Parameter id: The file's id.
    public func fileContents(id: String) async -> Data? {
        await state.fileContents[id]
    }

    /// Loses the answer to the next `count` uploads the file server stores: the file is stored, then the HTTP
    /// connection drops without an answer, as when the network fails on the way back.
    /// ``SocketCounters/lostUploadAnswers`` counts them.
    public func loseNextUploadAnswers(_ count: Int) async {
        await state.loseUploadAnswers(count)
    }

    /// Makes the file server read upload bodies at most `bytesPerSecond` fast (a slow link); nil reads them at
    /// once. ``SocketCounters/uploadBytesReceived`` counts what has arrived.
    public func setUploadRate(_ bytesPerSecond: Int?) async {
        await state.setUploadRate(bytesPerSecond)
    }

    /// Sets the upload limit of `tag` (`attachments`, `avatars`…) for every account; `GET /` states it under
    /// `features.limits`, and an upload over it is refused `422 {"type":"FileTooLarge","max":bytes}`.
    /// ``resetFaults()`` restores the configured limits.
    public func setUploadLimit(tag: String, bytes: Int) async {
        await state.setUploadLimit(tag: tag, bytes: bytes)
    }

    // MARK: Web Push

    /// Every live session's Web Push subscription (`POST /push/subscribe`), by session id; a session that
    /// ended took its subscription with it.
    public func pushSubscriptions() async -> [SessionPushSubscription] {
        await state.pushSubscriptions()
    }
}
