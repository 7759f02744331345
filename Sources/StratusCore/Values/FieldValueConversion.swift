import Foundation
import StratusWire

/// Turns the values users put into records into CloudKit's schema types and back.
///
/// Numbers are stored as `Int64` or `Double` and read back as `NSNumber`, so `as? Int`,
/// `as? Int64`, `as? Double` and `as? Bool` all work after a round trip, as on Apple's platforms.
/// Lists read back as `NSArray`, castable to `[String]`, `[Int]` and the like.
enum FieldValueConversion {
    /// Why a value cannot be stored; the record keeps the reason and the next save fails the
    /// record with `invalidArguments` carrying it.
    struct Rejection: Error, Hashable, ExpressibleByStringInterpolation {
        let reason: String

        init(stringLiteral value: String) {
            reason = value
        }
    }

    /// The schema value for `value`, or why it has none.
    ///
    /// - Parameter encrypted: Whether the value goes into `encryptedValues`, which holds
    ///   neither references nor assets.
    static func fieldValue(from value: Any, encrypted: Bool) -> Result<WireFieldValue, Rejection> {
        fieldValue(from: value, encrypted: encrypted, insideList: false)
    }

    private static func fieldValue(from value: Any, encrypted: Bool, insideList: Bool) -> Result<WireFieldValue, Rejection> {
        // Classes first: Foundation objects would otherwise bridge to Swift types with
        // other meanings (an NSNumber holding 2.0 casts to Int).
        if let reference = value as? CKRecord.Reference {
            return encrypted
                ? .failure("encryptedValues cannot hold a CKRecord.Reference")
                : .success(.reference(reference.wireValue))
        }
        if let asset = value as? CKAsset {
            return encrypted ? .failure("encryptedValues cannot hold a CKAsset") : .success(.asset(asset.wireValue))
        }
        if let string = value as? String { return .success(.string(string)) }
        if let number = value as? NSNumber { return fieldValue(from: number) }
        if let date = value as? Date {
            guard date.timeIntervalSinceReferenceDate.isFinite else { return .failure("a date must be finite") }
            return .success(.date(date))
        }
        if let data = value as? Data { return .success(.bytes(data)) }
        if let elements = value as? [Any] {
            guard !insideList else { return .failure("a list cannot hold another list") }
            return list(from: elements, encrypted: encrypted)
        }
        return .failure("\(type(of: value)) is not a CloudKit field type")
    }

    private static func fieldValue(from number: NSNumber) -> Result<WireFieldValue, Rejection> {
        switch String(cString: number.objCType) {
        case "f", "d":
            return .success(.double(number.doubleValue))
        case "Q", "L", "I":
            let unsigned = number.uint64Value
            guard unsigned <= UInt64(Int64.max) else {
                return .failure("\(unsigned) does not fit CloudKit's Int(64) field type")
            }
            return .success(.int64(Int64(unsigned)))
        default:
            return .success(.int64(number.int64Value))
        }
    }

    private static func list(from elements: [Any], encrypted: Bool) -> Result<WireFieldValue, Rejection> {
        var values: [WireFieldValue] = []
        values.reserveCapacity(elements.count)
        for element in elements {
            switch fieldValue(from: element, encrypted: encrypted, insideList: true) {
            case .success(let value):
                if let first = values.first, first.kind != value.kind {
                    return .failure("a list must hold values of one type, not \(first.kind) and \(value.kind)")
                }
                values.append(value)
            case .failure(let reason):
                return .failure("list element: \(reason.reason)")
            }
        }
        return .success(.list(values))
    }

    /// The Foundation object a field value reads back as, as `object(forKey:)` returns it.
    static func object(for value: WireFieldValue) -> any __CKRecordObjCValue {
        switch value {
        case .string(let string): NSString(string: string)
        case .int64(let integer): NSNumber(value: integer)
        case .double(let double): NSNumber(value: double)
        case .date(let date): NSDate(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate)
        case .bytes(let data): NSData(data: data)
        case .reference(let reference): CKRecord.Reference(wire: reference)
        case .asset(let asset): CKAsset(wire: asset)
        case .list(let elements): NSArray(array: elements.map { object(for: $0) as AnyObject })
        }
    }

    /// The Swift value a field value reads back as when a record is iterated: `String`, `Int64`,
    /// `Double`, `Date`, `Data`, a reference, an asset, or a typed array of these.
    static func swiftValue(for value: WireFieldValue) -> any CKRecordValueProtocol {
        switch value {
        case .string(let string): return string
        case .int64(let integer): return integer
        case .double(let double): return double
        case .date(let date): return date
        case .bytes(let data): return data
        case .reference(let reference): return CKRecord.Reference(wire: reference)
        case .asset(let asset): return CKAsset(wire: asset)
        case .list(let elements):
            switch elements.first {
            case .string?: return elements.compactMap { if case .string(let v) = $0 { v } else { nil } }
            case .int64?: return elements.compactMap { if case .int64(let v) = $0 { v } else { nil } }
            case .double?: return elements.compactMap { if case .double(let v) = $0 { v } else { nil } }
            case .date?: return elements.compactMap { if case .date(let v) = $0 { v } else { nil } }
            case .bytes?: return elements.compactMap { if case .bytes(let v) = $0 { v } else { nil } }
            case .reference?:
                return elements.compactMap { if case .reference(let v) = $0 { CKRecord.Reference(wire: v) } else { nil } }
            case .asset?: return elements.compactMap { if case .asset(let v) = $0 { CKAsset(wire: v) } else { nil } }
            case .list?, nil: return [String]()
            }
        }
    }
}
