/** The console's entry: defines the custom elements (each module registers its own). */
import './app';
