import StratusCore
import StratusOperations

/// An operation that tells the toolkit itself when it starts its work, by calling
/// ``OperationAttachment/operationDidStart(_:)`` from `start()` once it knows it will run.
/// For other operations the condition evaluator reports the start when it releases them.
protocol StartReporting: AnyObject {}
