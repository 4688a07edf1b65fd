/** The console's entry: defines the custom elements (each module registers its own). */
import './app';

// The page's own margin, set through the CSSOM: the CSP allows no inline style element or attribute.
document.body.style.margin = '0';
