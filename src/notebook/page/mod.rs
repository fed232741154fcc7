//! What every output on a notebook's page is made of: evcxr's rich-output protocol, HTML escaping
//! and the tables' styles, and the colours of figures and tables.

pub(crate) mod html;
pub(crate) mod output;
pub(crate) mod palette;
