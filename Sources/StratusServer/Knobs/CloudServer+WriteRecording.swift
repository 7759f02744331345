import Foundation
import StratusWire

extension CloudServer {
    /// Whether the server keeps ``recordedWrites``: false unless set, so the write path pays
    /// nothing for it otherwise. Setting it clears what was recorded.
    @_spi(Testing)
    public var isRecordingWrites: Bool {
        get { writeHistory.withLock { $0 != nil } }
        set { writeHistory.withLock { $0 = newValue ? [] : nil } }
    }

    /// Every record write applied since ``isRecordingWrites`` was set, in the order the server
    /// applied them: what a test checks to show that a client never reported a record saved
    /// that the server does not hold, and never wrote one record twice.
    @_spi(Testing)
    public var recordedWrites: [RecordWrite] {
        writeHistory.withLock { $0 ?? [] }
    }
}
