#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The operations facet: Lifeline's own extension (stoatchat has no operations API and no
/// `OperationFinished` event), kept for Lifeline's operation-expiry specification.
extension ServerState {
    /// `GET /operations`: the session user's pending operations, soonest expiry first.
    func operations(token: String?) throws(RouteFailure) -> [StoatOperation] {
        let session = try sessionGuard(token)
        return operations.values.filter { $0.userID == session.userID }.sorted { $0.expiresAt < $1.expiresAt }
    }

    func addOperation(kind: String, userID: String, expiresIn: Duration) -> StoatOperation {
        let operation = StoatOperation(
            id: Identifiers.ulid(at: now()), kind: kind, userID: userID,
            expiresAt: now().addingTimeInterval(expiresIn.seconds))
        operations[operation.id] = operation
        persist(.operation, id: operation.id, operation)
        changed()
        return operation
    }

    /// Ends an operation: the owner's authenticated sockets receive `OperationFinished`.
    @discardableResult
    func finishOperation(id: String, result: OperationResult) -> Bool {
        guard let operation = operations.removeValue(forKey: id) else { return false }
        unpersist(.operation, id: id)
        let frame = ServerEvent.operationFinished(id: id, result: result).wire
        for connection in connections.values
        where connection.record.isAuthenticated && connection.phase != .ended
            && connection.record.userID == operation.userID
        {
            connection.socket.send(frame)
        }
        changed()
        return true
    }

    /// Ends every operation whose expiry has passed in the server's clock with `timeout`; returns their ids.
    func expireOperations() -> [String] {
        let instant = now()
        let expired = operations.values.filter { $0.expiresAt <= instant }.sorted { $0.expiresAt < $1.expiresAt }
        for operation in expired { finishOperation(id: operation.id, result: .timeout) }
        return expired.map(\.id)
    }
}
