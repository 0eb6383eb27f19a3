//! Writing: the writer state machine, the folder encoder and its workers,
//! the file table, the header writer, AES encoding and the options.

pub(crate) mod aes_encoder;
pub(crate) mod file_table;
pub(crate) mod folder_encoder;
pub(crate) mod folder_workers;
pub(crate) mod header_writer;
pub(crate) mod output_spool;
pub(crate) mod poll_writer;
pub(crate) mod writer;
pub(crate) mod writer_options;
pub(crate) mod writer_thread;
