/** @public */
export const defaultAuthenticationService = {
    async validateCredential(_credential, _signaturePublicKey) {
        return true;
    },
};
//# sourceMappingURL=authenticationService.js.map