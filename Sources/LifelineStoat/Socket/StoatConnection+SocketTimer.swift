// The WSClient socket is woken by the same kind of timer as the NIO one.
extension StoatConnection: SocketTimerTarget {}
