/** Kept until the gateway imports `@stratum/domain-quota/contract`; then this file goes. */
import { contract } from './contract';

export const { errorSchema, openapiSections } = contract;
