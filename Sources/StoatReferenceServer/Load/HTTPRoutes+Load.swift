import Hummingbird

extension HTTPRoutes {
    /// The admin routes for load tests under `/admin/load/`: a population, drops aimed at users, the storm, and
    /// the report (see ``ReferenceServer/addLoadPopulation(users:groups:)`` and the catalog's "Load").
    func addAdminLoad(to router: Router<ServerRequestContext>) {
        let state = state
        admin(router, .post, "load/population") { body, _ in
            let population = try await Self.world {
                try await state.addLoadPopulation(
                    users: try body.int("users", in: 0...100_000),
                    groups: try body.optionalInt("groups", in: 0...10_000) ?? 0,
                    channelsPerGroup: try body.optionalInt("channels_per_group", in: 1...100) ?? 1)
            }
            return Self.json(
                .object([
                    "groups": .array(
                        population.groups.map {
                            .object([
                                "server_id": .string($0.serverID), "channel_id": .string($0.channelID),
                                "poster_id": .string($0.posterID), "other_channel_ids": .strings($0.otherChannelIDs),
                            ])
                        }),
                    "users": .array(
                        population.users.map {
                            .object([
                                "user_id": .string($0.userID), "token": .string($0.token),
                                "group": $0.group.map { .integer($0) } ?? .null,
                            ])
                        }),
                ]))
        }
        admin(router, .post, "load/drop") { body, _ in
            guard case .array(let values)? = body["user_ids"] else { throw AdminFailure.invalid("user_ids") }
            let ids = Set(values.compactMap(\.stringValue))
            return Self.json(.object(["dropped": .integer(await state.dropSockets(userIDs: ids))]))
        }
        admin(router, .post, "load/storm") { _, _ in
            Self.json(.object(["dropped": .integer(await state.startStorm())]))
        }
        admin(router, .post, "load/report") { body, _ in
            let report = await state.loadReport(closedAfter: try body.optionalInt("closed_after", in: 0...Int.max) ?? 0)
            func connection(_ connection: LoadReport.Connection) -> Wire {
                .object([
                    "id": .integer(connection.id), "user_id": connection.userID.map { .string($0) } ?? .null,
                    "open": .bool(connection.isOpen), "ready": .bool(connection.receivedReady),
                    "subscribes": .object(
                        connection.subscribes.sorted { $0.key < $1.key }.map {
                            Wire.Field(key: $0.key, value: .integer($0.value))
                        }),
                ])
            }
            return Self.json(
                .object([
                    "upgrades_accepted": .integer(report.counters.upgradesAccepted),
                    "upgrades_refused": .integer(report.counters.upgradesRefused),
                    "live_sockets": .integer(report.counters.liveSockets),
                    "maximum_open_per_token": .integer(report.maximumOpenPerToken),
                    "overlap_count": .integer(report.overlapCount),
                    "overlaps": .array(
                        report.overlaps.map {
                            .object([
                                "user_id": $0.userID.map { .string($0) } ?? .null,
                                "connections": .array($0.connectionIDs.map { .integer($0) }),
                                "at": .string(StoatTimestamp.string($0.at)),
                            ])
                        }),
                    "closed_count": .integer(report.closedCount),
                    "closed": .array(report.closed.map(connection)),
                    "open": .array(report.open.map(connection)),
                ]))
        }
    }
}
