export function addToMap(map, k, v) {
    const copy = new Map(map);
    copy.set(k, v);
    return copy;
}
//# sourceMappingURL=addToMap.js.map