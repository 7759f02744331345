import Foundation
import XCTest

/// The server's folders are layers (ARCHITECTURE.md): each uses only the folders it is allowed
/// to, and no two depend on each other both ways.
///
/// A folder uses another when its code names something declared only there: a type, or a
/// member declared at the top level of a type or extension. Names declared in `StratusWire`,
/// names declared in more than one folder, and names the using folder binds itself (locals,
/// parameters, labels) are left out, so the check reads a few names too few rather than
/// inventing a use. `CloudServer.swift`, the composition root holding every layer's state, is
/// not a layer.
final class ServerLayerTests: XCTestCase {
    /// What each layer may use, as ARCHITECTURE.md draws it.
    static let allowed: [String: Set<String>] = [
        "Knobs": ["Handlers", "Writes", "Reads", "Gate", "Publishing", "Query", "Storage", "Rules", "People", "Support"],
        "Handlers": ["Writes", "Reads", "Gate", "Publishing", "Query", "Storage", "Rules", "People", "Support"],
        "Writes": ["Reads", "Gate", "Publishing", "Storage", "Rules", "People", "Support"],
        "Reads": ["Gate", "Query", "Storage", "Rules", "People", "Support"],
        "Publishing": ["Gate", "Storage", "Rules", "People", "Support"],
        "Gate": ["Storage", "Rules", "People", "Support"],
        "Query": ["Storage", "Rules", "People", "Support"],
        "Storage": ["Rules", "People", "Support"],
        "Rules": ["People", "Support"],
        "People": ["Support"],
        "Support": [],
    ]

    func testEveryFolderIsALayer() throws {
        let folders = try Set(SourceTree.server.files.keys.map(\.folder)).subtracting([SourceTree.root])
        XCTAssertEqual(folders, Set(Self.allowed.keys), "a server folder is missing from ARCHITECTURE.md's layers, or a layer from the folders")
    }

    func testLayersUseOnlyTheLayersBelowThem() throws {
        let uses = try SourceTree.server.uses(ignoring: SourceTree.wire.declaredNames)
        for (folder, used) in uses.sorted(by: { $0.key < $1.key }) where folder != SourceTree.root {
            for (target, names) in used.sorted(by: { $0.key < $1.key }) where target != SourceTree.root {
                XCTAssertTrue(
                    Self.allowed[folder]?.contains(target) ?? false,
                    "\(folder) uses \(target) (\(names.sorted().prefix(5).joined(separator: ", "))), which ARCHITECTURE.md does not allow"
                )
            }
        }
    }

    func testNoTwoFoldersDependOnEachOtherBothWays() throws {
        let uses = try SourceTree.server.uses(ignoring: SourceTree.wire.declaredNames)
        for (folder, used) in uses where folder != SourceTree.root {
            for target in used.keys where target != SourceTree.root && target > folder {
                XCTAssertNil(uses[target]?[folder], "\(folder) and \(target) use each other")
            }
        }
    }
}

/// The Swift files of one source folder, read as text.
private struct SourceTree {
    struct File: Hashable {
        var path: String
        /// The first folder below the module, or ``SourceTree/root``.
        var folder: String
    }

    static let root = "(root)"

    var files: [File: String]

    static var server: SourceTree { get throws { try SourceTree(module: "StratusServer") } }
    static var wire: SourceTree { get throws { try SourceTree(module: "StratusWire") } }

    init(module: String) throws {
        let sources = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources").appendingPathComponent(module)
        let enumerator = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)
        var files: [File: String] = [:]
        while let url = enumerator?.nextObject() as? URL {
            guard url.pathExtension == "swift" else { continue }
            let relative = String(url.standardizedFileURL.path.dropFirst(sources.standardizedFileURL.path.count + 1))
            let parts = relative.split(separator: "/")
            let folder = parts.count > 1 ? String(parts[0]) : Self.root
            files[File(path: relative, folder: folder)] = try String(contentsOf: url, encoding: .utf8)
        }
        guard !files.isEmpty else { throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: sources.path]) }
        self.files = files
    }

    /// Names declared at the top level of a file or of a type or extension in it.
    var declaredNames: Set<String> {
        Set(files.values.flatMap(Self.declarations))
    }

    /// For each folder, the folders whose declarations it names, with the names.
    func uses(ignoring external: Set<String>) -> [String: [String: Set<String>]] {
        var owners: [String: Set<String>] = [:]
        for (file, text) in files {
            for name in Self.declarations(in: text) { owners[name, default: []].insert(file.folder) }
        }
        var bound: [String: Set<String>] = [:]
        for (file, text) in files { bound[file.folder, default: []].formUnion(Self.boundNames(in: text)) }
        var uses: [String: [String: Set<String>]] = [:]
        for (file, text) in files {
            for name in Self.identifiers(in: Self.code(of: text)) where !external.contains(name) && !Self.standardNames.contains(name) {
                guard let folders = owners[name], folders.count == 1, let owner = folders.first,
                      owner != file.folder, !(bound[file.folder]?.contains(name) ?? false)
                else { continue }
                uses[file.folder, default: [:]][owner, default: []].insert(name)
            }
        }
        return uses
    }

    /// Names the standard library declares too: a use of one says nothing about a folder.
    private static let standardNames: Set<String> = [
        "add", "append", "get", "set", "contains", "count", "description", "filter", "first", "forEach", "index", "insert",
        "isEmpty", "key", "keys", "last", "map", "max", "min", "prefix", "reduce", "remove", "removeAll", "sorted", "split", "values",
    ]

    private static let declaration = regex(#"^ {0,4}(?:@[\w.]+(?:\([^)]*\))? +)*(?:(?:public|package|internal|private|fileprivate|static|final|mutating|nonisolated|override|lazy|indirect|class) +)*(?:func|var|let|struct|class|enum|actor|protocol|typealias) +([A-Za-z_]\w*)"#)
    private static let binding = regex(#"\b(?:let|var|for|case|func)\s+\(?\s*([A-Za-z_]\w*)|([A-Za-z_]\w*)\s*:|\{\s*\(?\s*([A-Za-z_]\w*)(?:\s*,\s*[A-Za-z_]\w*)*\s*\)?\s*(?:throws(?:\([^)]*\))?\s*)?(?:->[^{}\n]*)?\s+in\b"#)
    private static let identifier = regex(#"(?<!\w)([A-Za-z_]\w*)"#)

    private static func regex(_ pattern: String) -> NSRegularExpression? {
        try? NSRegularExpression(pattern: pattern, options: [.anchorsMatchLines])
    }

    private static func matches(_ regex: NSRegularExpression?, in text: String) -> [String] {
        // The patterns are constants of this file: one that does not compile fails the tests.
        guard let regex else { return ["<pattern does not compile>"] }
        let range = NSRange(text.startIndex..., in: text)
        return regex.matches(in: text, range: range).compactMap { match in
            (1..<match.numberOfRanges).lazy.compactMap { Range(match.range(at: $0), in: text).map { String(text[$0]) } }.first
        }
    }

    private static func declarations(in text: String) -> [String] {
        matches(declaration, in: text)
    }

    private static func boundNames(in text: String) -> Set<String> {
        Set(matches(binding, in: code(of: text)))
    }

    private static func identifiers(in text: String) -> Set<String> {
        Set(matches(identifier, in: text))
    }

    /// The text without comments and string literals' contents (interpolations kept).
    private static func code(of text: String) -> String {
        var result = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var inString = false
            // The parentheses open in each interpolation the line is inside, innermost last.
            var interpolations: [Int] = []
            var previous: Character = " "
            for character in line {
                defer { previous = character }
                if inString {
                    if character == "\"", previous != "\\" {
                        inString = false
                        result.append(character)
                    } else if character == "(", previous == "\\" {
                        interpolations.append(0)
                        inString = false
                    }
                    continue
                }
                if character == "/", previous == "/" {
                    result.removeLast()
                    break
                }
                switch character {
                case "\"": inString = true
                case "(": if let last = interpolations.indices.last { interpolations[last] += 1 }
                case ")":
                    if let last = interpolations.indices.last {
                        if interpolations[last] == 0 {
                            interpolations.removeLast()
                            inString = true
                            continue
                        }
                        interpolations[last] -= 1
                    }
                default: break
                }
                result.append(character)
            }
            result.append("\n")
        }
        return result
    }
}
