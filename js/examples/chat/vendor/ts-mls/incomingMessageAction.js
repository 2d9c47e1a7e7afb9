/** @public */
export const acceptAll = () => "accept";
//# sourceMappingURL=incomingMessageAction.js.map