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
        guard let convertible = value as? any FieldValueConvertible else {
            return .failure("\(type(of: value)) is not a CloudKit field type")
        }
        switch convertible.fieldValue() {
        case .success(.reference) where encrypted:
            return .failure("encryptedValues cannot hold a CKRecord.Reference")
        case .success(.asset) where encrypted:
            return .failure("encryptedValues cannot hold a CKAsset")
        case .success(.list(let elements)) where encrypted && elements.contains(where: \.isReferenceOrAsset):
            return .failure("encryptedValues cannot hold a list of references or assets")
        case let result:
            return result
        }
    }

    /// How many collections deep `argument` nests (a flat array is 1, a number 0), counting
    /// Swift and Foundation arrays, sets and dictionaries; stops past `limit`, returning
    /// `limit + 1`. A predicate's argument arrays become lists, so each of their levels is a
    /// predicate level; a record's list may not nest at all.
    ///
    /// Walks with an explicit stack, reading elements through `Mirror`, which neither recurses
    /// nor bridges: on Linux even `NSArray.object(at:)` bridges a nested `NSArray` to Swift
    /// recursively, and so does casting a nested Swift array to any class. A collection that
    /// contains itself is as deep as the limit allows, and more.
    static func nesting(of argument: Any, stoppingAbove limit: Int) -> Int {
        var pending: [(value: Any, level: Int)] = [(argument, 0)]
        var deepest = 0
        while let (value, level) = pending.popLast() {
            deepest = max(deepest, level)
            if deepest > limit { return limit + 1 }
            if value is String { continue }
            let mirror = Mirror(reflecting: value)
            switch mirror.displayStyle {
            case .collection?, .set?, .dictionary?:
                for child in mirror.children { pending.append((child.value, level + 1)) }
                deepest = max(deepest, level + 1)
            case .optional?, .tuple?:
                // The value inside, or a dictionary's key and value: no level of their own.
                for child in mirror.children { pending.append((child.value, level)) }
            default:
                break
            }
        }
        return min(deepest, limit + 1)
    }

    /// The list value of `elements`: one kind of value, no nested lists.
    static func list(from elements: some Sequence) -> Result<WireFieldValue, Rejection> {
        var values: [WireFieldValue] = []
        values.reserveCapacity(elements.underestimatedCount)
        for element in elements {
            guard let convertible = element as? any FieldValueConvertible else {
                return .failure("list element: \(type(of: element)) is not a CloudKit field type")
            }
            if convertible.isList { return .failure("a list cannot hold another list") }
            switch convertible.fieldValue() {
            case .success(let value):
                if let first = values.first, first.kind != value.kind {
                    return .failure("a list must hold values of one type, not \(first.kind) and \(value.kind)")
                }
                values.append(value)
            case .failure(let rejection):
                return .failure("list element: \(rejection.reason)")
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
        case .location(let location): CLLocation(wire: location)
        case .list(let elements): NSArray(array: elements.map { object(for: $0) as AnyObject })
        }
    }

    /// The Swift value a field value reads back as when a record is iterated: `String`, `Int64`,
    /// `Double`, `Date`, `Data`, a reference, an asset, a location, or a typed array of these.
    static func swiftValue(for value: WireFieldValue) -> any CKRecordValueProtocol {
        switch value {
        case .string(let string): return string
        case .int64(let integer): return integer
        case .double(let double): return double
        case .date(let date): return date
        case .bytes(let data): return data
        case .reference(let reference): return CKRecord.Reference(wire: reference)
        case .asset(let asset): return CKAsset(wire: asset)
        case .location(let location): return CLLocation(wire: location)
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
            case .location?: return elements.compactMap { if case .location(let v) = $0 { CLLocation(wire: v) } else { nil } }
            case .list?, nil: return [String]()
            }
        }
    }
}

/// A value that knows its CloudKit schema value. Each conformance converts its own type, so an
/// `NSNumber` holding 2.0 is a double and a Swift `Int` an integer, with no bridging guesswork.
protocol FieldValueConvertible {
    func fieldValue() -> Result<WireFieldValue, FieldValueConversion.Rejection>
    /// Whether the value is a list: a list inside a list is refused before it is converted,
    /// so an array nested thousands deep is refused at its second level, not walked.
    var isList: Bool { get }
}

extension FieldValueConvertible {
    var isList: Bool { false }
}

extension WireFieldValue {
    fileprivate var isReferenceOrAsset: Bool {
        switch self {
        case .reference, .asset: true
        default: false
        }
    }
}

extension String: FieldValueConvertible {
    func fieldValue() -> Result<WireFieldValue, FieldValueConversion.Rejection> { .success(.string(self)) }
}

extension NSString: FieldValueConvertible {
    func fieldValue() -> Result<WireFieldValue, FieldValueConversion.Rejection> { .success(.string(self as String)) }
}

extension BinaryInteger where Self: FieldValueConvertible {
    func fieldValue() -> Result<WireFieldValue, FieldValueConversion.Rejection> {
        guard let value = Int64(exactly: self) else {
            return .failure("\(self) does not fit CloudKit's Int(64) field type")
        }
        return .success(.int64(value))
    }
}

extension Int: FieldValueConvertible {}
extension Int8: FieldValueConvertible {}
extension Int16: FieldValueConvertible {}
extension Int32: FieldValueConvertible {}
extension Int64: FieldValueConvertible {}
extension UInt: FieldValueConvertible {}
extension UInt8: FieldValueConvertible {}
extension UInt16: FieldValueConvertible {}
extension UInt32: FieldValueConvertible {}
extension UInt64: FieldValueConvertible {}

extension Bool: FieldValueConvertible {
    func fieldValue() -> Result<WireFieldValue, FieldValueConversion.Rejection> { .success(.int64(self ? 1 : 0)) }
}

extension Double: FieldValueConvertible {
    func fieldValue() -> Result<WireFieldValue, FieldValueConversion.Rejection> {
        isFinite ? .success(.double(self)) : .failure("\(self) is not a finite number; CloudKit stores only finite doubles")
    }
}

extension Float: FieldValueConvertible {
    func fieldValue() -> Result<WireFieldValue, FieldValueConversion.Rejection> { Double(self).fieldValue() }
}

extension NSNumber: FieldValueConvertible {
    func fieldValue() -> Result<WireFieldValue, FieldValueConversion.Rejection> {
        switch String(cString: objCType) {
        case "f", "d":
            return doubleValue.fieldValue()
        case "Q", "L", "I":
            return uint64Value.fieldValue()
        default:
            return .success(.int64(int64Value))
        }
    }
}

extension Date: FieldValueConvertible {
    func fieldValue() -> Result<WireFieldValue, FieldValueConversion.Rejection> {
        timeIntervalSinceReferenceDate.isFinite ? .success(.date(self)) : .failure("a date must be finite")
    }
}

extension NSDate: FieldValueConvertible {
    func fieldValue() -> Result<WireFieldValue, FieldValueConversion.Rejection> { (self as Date).fieldValue() }
}

extension Data: FieldValueConvertible {
    func fieldValue() -> Result<WireFieldValue, FieldValueConversion.Rejection> { .success(.bytes(self)) }
}

extension NSData: FieldValueConvertible {
    func fieldValue() -> Result<WireFieldValue, FieldValueConversion.Rejection> { .success(.bytes(self as Data)) }
}

extension CKReference: FieldValueConvertible {
    func fieldValue() -> Result<WireFieldValue, FieldValueConversion.Rejection> { .success(.reference(wireValue)) }
}

extension CKAsset: FieldValueConvertible {
    func fieldValue() -> Result<WireFieldValue, FieldValueConversion.Rejection> { .success(.asset(wireValue)) }
}

extension Array: FieldValueConvertible {
    func fieldValue() -> Result<WireFieldValue, FieldValueConversion.Rejection> { FieldValueConversion.list(from: self) }
    var isList: Bool { true }
}

extension NSArray: FieldValueConvertible {
    /// Looked at through `Mirror` first: on Linux, reading an element of an `NSArray` bridges
    /// a nested `NSArray` to Swift all the way down, which a deep enough one overflows.
    func fieldValue() -> Result<WireFieldValue, FieldValueConversion.Rejection> {
        guard FieldValueConversion.nesting(of: self, stoppingAbove: 1) <= 1 else { return .failure("a list cannot hold another list") }
        return FieldValueConversion.list(from: self)
    }
    var isList: Bool { true }
}
