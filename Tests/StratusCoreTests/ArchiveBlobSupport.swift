import Foundation
import StratusCore
import XCTest

extension XCTestCase {
    /// The versioned blob `object` stores in its keyed archive, to damage or forge.
    func blob(of object: NSObject & NSSecureCoding) throws -> Data {
        let coder = NSKeyedArchiver(requiringSecureCoding: true)
        object.encode(with: coder)
        coder.finishEncoding()
        let decoder = try NSKeyedUnarchiver(forReadingFrom: coder.encodedData)
        return try XCTUnwrap(decoder.decodeObject(of: NSData.self, forKey: SecureCodingBlob.key)) as Data
    }

    /// A keyed archive that holds `blob` where a Stratus object keeps its blob.
    func archive(withBlob blob: Data) -> Data {
        let coder = NSKeyedArchiver(requiringSecureCoding: true)
        coder.encode(NSData(data: blob), forKey: SecureCodingBlob.key)
        coder.finishEncoding()
        return coder.encodedData
    }
}
