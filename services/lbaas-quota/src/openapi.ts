/** Kept until the gateway imports `@stratum/lbaas-quota/contract`; then this file goes. */
import { contract } from './contract';

export const { errorSchema, openapiSections } = contract;
