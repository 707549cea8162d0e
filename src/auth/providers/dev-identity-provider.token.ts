/** Injection token of the development identity provider (null when a real idp1 is configured). */
export const DEV_IDENTITY_PROVIDER = Symbol('DEV_IDENTITY_PROVIDER');
