import Foundation
import Stratus
import XCTest

final class SyncEngineSmokeTests: SyncEngineTestCase {
    func testTwoDevicesSyncThroughTheEngine() async throws {
        let a = device()
        let b = device()
        a.engine.state.add(pendingDatabaseChanges: [.saveZone(CKRecordZone(zoneID: a.store.zoneID))])
        for index in 0..<444 { a.store.save("Clown \(index)", as: "c\(index)", engine: a.engine) }
        try await a.engine.sendChanges()
        print(a.store.events)
        try await b.engine.fetchChanges()
        print(b.store.events)
        XCTAssertEqual(b.store.names.count, 444)
        XCTAssertEqual(b.store.names, a.store.names)
    }
}
