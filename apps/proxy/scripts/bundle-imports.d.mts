export declare const importedSpecifiers: (code: string) => string[];
export declare const packageOf: (spec: string) => string;
export declare const isUnprefixedBuiltin: (spec: string) => boolean;
